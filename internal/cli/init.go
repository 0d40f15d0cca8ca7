package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/repository"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// initFlags are the flags of the init command.
type initFlags struct {
	in     config.Init
	globs  []string
	force  bool
	update bool
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
		Use:   "init [--artifact FILE [--dim N] [--port FILE --port-dim M]] [--glob PATTERN]... [--update]",
		Short: "Write a commented ledgercheck.yaml for a sidecar of your own, or for a repository as it is",
		Long: `init writes ` + config.DefaultFile + ` in the current directory for a new sidecar: its migration
(--artifact, at vector dimension --dim: required where the file has a vector type, such as a
vector(768) column; a file without one needs none) and, optionally, one port of it (--port at
--port-dim), compared with the artifact through an allowlist (--allowlist, default
allowlist.yaml, created empty when it does not exist; an existing one is left as it is). The Open
Brain prerequisites are on where the files use an Open Brain object (thoughts, agent_memories,
their functions), and off otherwise, with a comment that says which objects; the lint policy's
existing objects and untrusted extensions are the shipped ones. Comments explain every key, and commented-out examples of ports, probes, a fixture and
prerequisite files (another sidecar this one depends on). It passes validation as written, so
` + "`ledgercheck check`" + ` runs at once:

  ledgercheck init --artifact sidecar.sql --dim 1536
  ledgercheck check

Paths are written as given and read relative to the configuration's directory. init refuses to
overwrite an existing ` + config.DefaultFile + ` unless --force is given.

Without --artifact, init writes a configuration of version 3 for the repository in the current
directory as it is: every .sql file under it (hidden directories and node_modules left out), or
those --glob PATTERN matches (repeatable; ** matches any number of directories), is a sidecar
named after its directory (plus the file's stem where the directory holds more than one), at
--dim (default 1536, or the dimension its vector types say), with needs: filled in from what its
file uses that another creates (relations, columns another file adds, functions, types,
schemas, policies; function bodies included, not SQL built at run time) and why, as a comment,
for review. A Supabase project's supabase/migrations directory is one entry, with the policy of a
project's own migrations; a base schema, a seed and a test are left out, with a comment saying
why. --update adds what the repository gained to an existing configuration and keeps what a
reviewer wrote:

  ledgercheck init
  ledgercheck init --glob "schemas/**/*.sql" --glob "recipes/**/*.sql"
  ledgercheck init --update

Exit codes: 0 written; 2 a usage error or an existing ` + config.DefaultFile + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd, g) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.in.Artifact, "artifact", "", "the sidecar's migration (without it: the repository's configuration of version 3)")
	fl.StringArrayVar(&f.globs, "glob", nil, "without --artifact: the files to configure (repeatable; ** matches any number of directories; default every .sql file)")
	fl.IntVar(&f.in.Dim, "dim", 0, "the vector dimension it is installed at (required with an --artifact that has a vector type; default 1536 for a repository)")
	fl.BoolVar(&f.update, "update", false, "without --artifact: add the files the repository gained to the existing "+config.DefaultFile+", keeping what it says")
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
	if in.Artifact == "" {
		return f.runRepository(cmd, g)
	}
	if len(f.globs) > 0 || f.update {
		return fault.Input(errors.New("--glob and --update configure a repository: drop --artifact"))
	}
	if err := sidecarDefaults(cmd, g, &in); err != nil {
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
	if in.Dim == 0 {
		g.logf("init: wrote %s (version %d) for %s, which has no vector column, so no dimension", config.DefaultFile, config.Version, in.Artifact)
	} else {
		g.logf("init: wrote %s (version %d) for %s at dimension %d", config.DefaultFile, config.Version, in.Artifact, in.Dim)
	}
	g.logf("init: prerequisites.openbrain: %t. %s", in.OpenBrain, strings.Join(strings.Fields(strings.Join(in.OpenBrainWhy, " ")), " "))
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

// runRepository writes the configuration of version 3 of the repository in the working
// directory (or, with --update, adds what it gained to the existing one).
func (f *initFlags) runRepository(cmd *cobra.Command, g *globals) error {
	switch {
	case f.in.Port != "" || cmd.Flags().Changed("port-dim") || cmd.Flags().Changed("allowlist"):
		return fault.Input(errors.New("--port describes a port of --artifact: a repository's sidecars take their ports in their entries"))
	case f.update && f.force:
		return fault.Input(errors.New("--update keeps the configuration, --force replaces it: give one"))
	}
	dim := scratch.DefaultDim
	if cmd.Flags().Changed("dim") {
		if err := dimFlag(cmd, "dim", f.in.Dim, "a sidecar's vector dimension"); err != nil {
			return err
		}
		dim = f.in.Dim
	}
	scope := g.scope()
	lay, err := repository.Discover{Root: ".", Globs: f.globs, Dim: dim, Policy: config.DefaultLint(),
		Read: func(p string) ([]byte, error) { return scope.ReadFile(p, input.Migration) }}.Run()
	if err != nil {
		return fault.Input(fmt.Errorf("init: %w", err))
	}
	var existing *config.Config
	if f.update {
		if existing, err = f.existing(g); err != nil {
			return err
		}
		byFile, taken := existing.Configured()
		lay.Rename(".", byFile, taken)
	}
	in := initRepository(cmd, lay, dim)
	for _, d := range lay.Dropped {
		g.logf("init: %s and %s need each other (a cycle, which a configuration cannot hold): left out %s; review", d.Sidecar, d.Need.Sidecar, d.Need.Sentence(d.Sidecar))
	}
	for _, l := range in.LeftOut {
		g.logf("init: left out %s: %s", l.File, l.Why)
	}
	if f.update {
		return f.updateRepository(g, existing, in)
	}
	if err := f.write(config.RepositoryConfig(in)); err != nil {
		return err
	}
	what := nouns.Count(len(in.Sidecars), "sidecar")
	if in.Migrations != "" {
		what += ", the migrations of " + in.Migrations
	}
	g.logf("init: wrote %s (version %d): %s; review each one's needs, then ledgercheck check", config.DefaultFile, config.RepositoryVersion, what)
	return nil
}

// initRepository is what init writes for lay: its sidecars in path order (each with its needs
// and why; the configuration orders them by their needs when it loads), its migrations
// directory and the files it leaves out.
func initRepository(cmd *cobra.Command, lay *repository.Layout, dim int) config.InitRepository {
	in := config.InitRepository{Command: "ledgercheck " + strings.Join(append([]string{cmd.Name()}, initArgs(cmd)...), " "), Migrations: lay.Migrations, MigrationsDim: dim}
	for _, fd := range lay.Files {
		switch fd.Kind {
		case repository.SidecarFile:
			s := config.InitSidecar{Name: fd.Name, File: fd.Path, Dim: fd.Dim}
			for _, n := range fd.Needs {
				s.Needs = append(s.Needs, n.Sidecar)
				s.Why = append(s.Why, n.Sentence(fd.Name))
			}
			in.Sidecars = append(in.Sidecars, s)
		case repository.Migration:
		default:
			in.LeftOut = append(in.LeftOut, config.InitLeftOut{File: fd.Path, Why: fd.Why})
		}
	}
	return in
}

// initArgs are the flags init was given, as a command line would write them.
func initArgs(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if sa, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sa.GetSlice() {
				out = append(out, "--"+fl.Name, strconv.Quote(v))
			}
			return
		}
		if fl.Value.Type() == "bool" {
			out = append(out, "--"+fl.Name)
			return
		}
		out = append(out, "--"+fl.Name, fl.Value.String())
	})
	return out
}

// existing is the configuration of version 3 --update adds to.
func (f *initFlags) existing(g *globals) (*config.Config, error) {
	src, err := g.scope().ReadFile(config.DefaultFile, input.Config)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--update: %w (init without --update writes one)", err))
	}
	c, err := config.Parse(config.DefaultFile, src)
	if err != nil {
		return nil, err
	}
	if c.Version != config.RepositoryVersion {
		return nil, fault.Input(fmt.Errorf("--update: %s is of version %d, not a repository's (%d)", config.DefaultFile, c.Version, config.RepositoryVersion))
	}
	return c, nil
}

// updateRepository adds what in has that c, the existing configuration, lacks, keeping the rest.
func (f *initFlags) updateRepository(g *globals, c *config.Config, in config.InitRepository) error {
	src, err := g.scope().ReadFile(config.DefaultFile, input.Config)
	if err != nil {
		return fault.Input(fmt.Errorf("--update: %w", err))
	}
	out, added, err := config.UpdateRepository(c, src, in)
	if err != nil {
		return err
	}
	if len(added) == 0 {
		g.logf("init: --update: %s configures every SQL file already; nothing to add", config.DefaultFile)
		return nil
	}
	if _, err := config.Parse(config.DefaultFile, out); err != nil {
		return fmt.Errorf("the configuration init --update writes does not load, please report it: %w", err)
	}
	if err := os.WriteFile(config.DefaultFile, out, 0o644); err != nil {
		return fault.Input(fmt.Errorf("writing %s: %w", config.DefaultFile, err))
	}
	g.logf("init: --update: added %s to %s (%s); review their needs", nouns.Count(len(added), "entry"), config.DefaultFile, strings.Join(added, ", "))
	return nil
}
