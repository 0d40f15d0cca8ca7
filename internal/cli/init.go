package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// initFlags are the flags of the init command.
type initFlags struct {
	in    config.Init
	glob  string
	force bool
}

// emptyAllowlist is the allowlist init creates for a port: valid, and accepting nothing.
const emptyAllowlist = `# The reviewed differences between the artifact's install and the port's (see
# docs/how-to/allowlist.md in ledgercheck's repository). Each entry pins one difference and says why it is accepted;
# an entry that matches nothing is stale and fails the gate. Candidate entries for the current
# differences: ledgercheck allowlist suggest (reasons TODO until a person writes them).
version: 2
entries: []
`

func newInitCmd(g *globals) *cobra.Command {
	f := &initFlags{}
	cmd := &cobra.Command{
		Use:   "init --artifact FILE --dim N [--port FILE --port-dim M]",
		Short: "Write a commented ledgercheck.yaml for a sidecar of your own",
		Long: `init writes ` + config.DefaultFile + ` in the current directory for a new sidecar: its migration
(--artifact, at vector dimension --dim) and, optionally, one port of it (--port at --port-dim),
compared with the artifact through an allowlist (--allowlist, default allowlist.yaml, created
empty when it does not exist; an existing one is left as it is). The file has the Open Brain
defaults (the prerequisites, the lint policy's existing objects and untrusted extensions), with
comments that explain every key, and commented-out examples of ports, probes, a fixture and
prerequisite files (another sidecar this one depends on). It passes validation as written, so
` + "`ledgercheck check`" + ` runs at once:

  ledgercheck init --artifact sidecar.sql --dim 1536
  ledgercheck check

Paths are written as given and read relative to the configuration's directory. init refuses to
overwrite an existing ` + config.DefaultFile + ` unless --force is given.

For a repository of sidecars, --glob PATTERN (with --dim) writes a configuration of version 3
instead: one sidecar per matching file, named after its directory, with needs: filled in where
a file's statements reference a table or view another matching file creates (read from the
parsed files, function bodies included; not SQL built at run time), for review:

  ledgercheck init --glob "schemas/*/schema.sql" --dim 1536

Exit codes: 0 written; 2 a usage error or an existing ` + config.DefaultFile + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd, g) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.in.Artifact, "artifact", "", "the sidecar's migration (required, unless --glob)")
	fl.StringVar(&f.glob, "glob", "", "write a configuration of version 3 for every file matching this pattern, each a sidecar named after its directory, with the needs found")
	fl.IntVar(&f.in.Dim, "dim", 0, "the vector dimension it is installed at (required)")
	fl.StringVar(&f.in.Port, "port", "", "a port of the migration, compared with it")
	fl.IntVar(&f.in.PortDim, "port-dim", 0, "the port's vector dimension (with --port)")
	fl.StringVar(&f.in.Allowlist, "allowlist", "allowlist.yaml", "the port's allowlist, created empty when missing (with --port)")
	fl.BoolVar(&f.force, "force", false, "overwrite an existing "+config.DefaultFile)
	return cmd
}

// run checks the flags, writes the configuration (and the port's allowlist when missing) and
// says what it wrote on stderr.
func (f *initFlags) run(cmd *cobra.Command, g *globals) error {
	in := f.in
	if f.glob != "" {
		return f.runGlob(cmd, g)
	}
	if in.Artifact == "" {
		return fault.Input(errors.New("--artifact FILE is required: the sidecar's migration"))
	}
	if err := dimFlag(cmd, "dim", in.Dim, "the artifact's vector dimension"); err != nil {
		return err
	}
	switch {
	case in.Port == "" && (cmd.Flags().Changed("port-dim") || cmd.Flags().Changed("allowlist")):
		return fault.Input(errors.New("--port-dim and --allowlist describe a port: pass --port FILE too"))
	case in.Port != "":
		if err := dimFlag(cmd, "port-dim", in.PortDim, "the port's vector dimension"); err != nil {
			return err
		}
	}
	if in.Port == "" {
		in.Allowlist = ""
	}
	data, err := config.Template(in)
	if err != nil {
		return err
	}
	if err := f.write(data); err != nil {
		return err
	}
	g.logf("init: wrote %s (version %d) for %s at dimension %d", config.DefaultFile, config.Version, in.Artifact, in.Dim)
	if in.Port != "" {
		g.logf("init: the port %s at dimension %d is compared with it through %s", in.Port, in.PortDim, in.Allowlist)
		if _, err := os.Stat(in.Allowlist); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(in.Allowlist, []byte(emptyAllowlist), 0o644); err != nil {
				return fault.Input(fmt.Errorf("writing %s: %w", in.Allowlist, err))
			}
			g.logf("init: wrote %s, an empty allowlist", in.Allowlist)
		}
	}
	for _, file := range []string{in.Artifact, in.Port} {
		if _, err := os.Stat(file); file != "" && err != nil {
			g.logf("init: note: %s does not exist yet", file)
		}
	}
	g.logf("init: next, ledgercheck check (another sidecar it depends on goes under prerequisites.files)")
	return nil
}

// write writes the configuration data, once it loads, unless one exists and --force is not
// given.
func (f *initFlags) write(data []byte) error {
	if _, err := os.Lstat(config.DefaultFile); err == nil && !f.force {
		return fault.Input(fmt.Errorf("%s already exists; pass --force to overwrite it", config.DefaultFile))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fault.Input(fmt.Errorf("%s: %w", config.DefaultFile, err))
	}
	if _, err := config.Parse(config.DefaultFile, data); err != nil {
		return fmt.Errorf("the configuration init writes does not load, please report it: %w", err)
	}
	if err := os.WriteFile(config.DefaultFile, data, 0o644); err != nil {
		return fault.Input(fmt.Errorf("writing %s: %w", config.DefaultFile, err))
	}
	return nil
}

// dimFlag checks the dimension flag name of init, whose value is v and which gives what: an
// input error that says it is required when it was not given, or what is wrong with its value.
func dimFlag(cmd *cobra.Command, name string, v int, what string) error {
	if !cmd.Flags().Changed(name) {
		return fault.Input(fmt.Errorf("--%s N is required: %s (e.g. --%s 1536)", name, what, name))
	}
	if err := scratch.CheckDim(v); err != nil {
		return fault.Input(fmt.Errorf("--%s %w (%s)", name, err, what))
	}
	return nil
}

// runGlob writes a configuration of version 3 for every file matching --glob: one sidecar per
// file, named after its directory, needing the sidecars that create what its statements
// reference.
func (f *initFlags) runGlob(cmd *cobra.Command, g *globals) error {
	if err := dimFlag(cmd, "dim", f.in.Dim, "every sidecar's vector dimension"); err != nil {
		return err
	}
	if f.in.Artifact != "" || f.in.Port != "" {
		return fault.Input(errors.New("--glob lists the sidecars: drop --artifact and --port"))
	}
	files, err := filepath.Glob(f.glob)
	if err != nil || len(files) == 0 {
		return fault.Input(fmt.Errorf("--glob %s matches no file", f.glob))
	}
	sidecars, err := findNeeds(g.scope(), files, f.in.Dim)
	if err != nil {
		return err
	}
	if err := f.write(config.RepositoryTemplate(f.glob, sidecars)); err != nil {
		return err
	}
	g.logf("init: wrote %s (version %d): %s matching %s; review each one's needs", config.DefaultFile, config.RepositoryVersion, nouns.Count(len(sidecars), "sidecar"), f.glob)
	return nil
}

// findNeeds parses every file and returns its sidecar: named after its directory, needing the
// sidecars whose files create a table or view it references, at top level or in a function body
// (unqualified names taken as public's).
func findNeeds(scope input.Scope, files []string, dim int) ([]config.InitSidecar, error) {
	creator := map[string]string{} // "public.people" -> the sidecar that creates it
	reads := make([][]pgsql.Name, len(files))
	out := make([]config.InitSidecar, len(files))
	for i, file := range files {
		src, err := scope.ReadFile(file, input.Migration)
		if err != nil {
			return nil, fault.Input(err)
		}
		name := config.SidecarName(file)
		if j := slices.IndexFunc(out[:i], func(s config.InitSidecar) bool { return s.Name == name }); j >= 0 {
			return nil, fault.Input(fmt.Errorf("--glob: %s and %s are both in a directory named %s; a sidecar is named after its directory", out[j].File, file, name))
		}
		out[i] = config.InitSidecar{Name: name, File: filepath.ToSlash(file), Dim: dim}
		parsed, _ := pgsql.Parse(file, src)
		for _, label := range lint.Creates(parsed) {
			if kind, obj, ok := strings.Cut(label, " "); ok && (kind == "table" || kind == "view") {
				creator[obj] = name
			}
		}
		_, reads[i], _ = pgsql.Reads(string(src)) // a file that does not parse needs nothing found
		reads[i] = append(reads[i], bodyRelations(parsed)...)
	}
	for i := range out {
		for _, rel := range reads[i] {
			if rel.Schema == "" {
				rel.Schema = "public"
			}
			key := rel.String()
			if c, ok := creator[key]; ok && c != out[i].Name && !slices.Contains(out[i].Needs, c) {
				out[i].Needs = append(out[i].Needs, c)
			}
		}
	}
	return out, nil
}

// bodyRelations are the tables and views the statements in f's function bodies act on.
func bodyRelations(f *pgsql.File) []pgsql.Name {
	if f == nil {
		return nil
	}
	var out []pgsql.Name
	for _, op := range f.Ops {
		if op.Context != pgsql.InFunction {
			continue
		}
		for _, o := range op.Objects {
			if o.Kind == pgsql.KindTable || o.Kind == pgsql.KindView {
				out = append(out, o.Name)
			}
		}
	}
	return out
}
