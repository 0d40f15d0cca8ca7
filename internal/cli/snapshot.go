package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	installstep "ledgercheck/internal/install"
	"ledgercheck/internal/sqlscript"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/input"
	"ledgercheck/internal/pgsql"
	"ledgercheck/internal/report"
	"ledgercheck/internal/scratch"
	"ledgercheck/introspect"
)

func newSnapshotCmd(g *globals) *cobra.Command {
	var (
		sf        serverFlags
		install   string
		dim       int
		format    = formatFlag{value: "text", choices: []string{"text", "json"}}
		footprint bool
		opts      introspect.Options
	)
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Print the catalog snapshot of a migration's install, or of an existing database",
		Long: `snapshot prints what ledgercheck's parity and rerun checks compare: every schema, table
(RLS enabled and forced), column (type with typmod, default, identity, collation, column grants),
constraint, index, sequence, view, function (arguments, result, language, volatility, strict,
SECURITY DEFINER, leakproof, parallel, SET search_path and other config, owner, EXECUTE grants,
body), trigger, policy (roles as a set), default privilege, type, extension and role, with
comments and ACLs everywhere (grantor ignored). Expressions are printed schema-qualified.
Objects of the environment's schemas (auth, extensions, storage, ...) and of extensions are
left out unless asked for; triggers and policies on environment tables are always shown.

Three ways to run it:

  ledgercheck snapshot --install FILE --dim N
      Create a scratch database (embedded cluster, or on the --dsn server) with the Supabase
      environment and the Open Brain prerequisites at dimension N, install FILE into it as the
      install role, and print the snapshot. With --footprint, print only what FILE created,
      changed or dropped (including changes to objects that existed before: a new trigger on
      agent_memories, a changed grant). The scratch database is dropped afterwards.

  ledgercheck snapshot --dsn URL
      Without --install, --dsn names an existing database and it is only read: the snapshot is
      taken in one READ ONLY transaction and nothing is created, changed or dropped. --dim and
      --footprint do not apply.

  ledgercheck snapshot [--dim N]
      The baseline: a scratch database with the environment and prerequisites only.

Output: --format json (the snapshot or footprint model in the versioned envelope of
docs/json-schema.md) or text (one object per paragraph).
A file that cannot be read is exit 2; a FILE that fails to install is reported as
file:line:col with the server's error, exit 1; no Postgres is exit 3.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if dim <= 0 {
				return fault.Input(fmt.Errorf("--dim %d: want a positive dimension", dim))
			}
			if footprint && install == "" {
				return fault.Input(errors.New("--footprint needs --install FILE: it shows what FILE changed"))
			}
			if install == "" && sf.dsn != "" {
				if cmd.Flags().Changed("dim") {
					return fault.Input(errors.New("--dim applies to scratch databases; with --dsn and no --install the database at --dsn is only read"))
				}
				g.logf("snapshot: reading the database at --dsn (read-only)")
				opts.NormalizeBody = pgsql.NormalizeBody
				s, err := introspect.TakeURL(ctx, sf.dsn, opts)
				if err != nil {
					return err
				}
				return writeSnapshot(g.stdout, format.value, s)
			}
			var src []byte
			if install != "" {
				var err error
				if src, err = input.ReadFile(install, input.Migration); err != nil {
					return fault.Input(err)
				}
			}
			srv, err := g.startServer(ctx, &sf)
			if err != nil {
				return err
			}
			defer srv.Close()
			db, err := srv.NewDatabase(ctx, dim)
			if err != nil {
				return err
			}
			var (
				fp   *introspect.Footprint
				snap *introspect.Snapshot
			)
			if install != "" {
				g.logf("snapshot: installing %s at dimension %d", install, dim)
				var f *pgsql.File
				if f, err = sqlscript.Parse(install, src, dim); err == nil {
					fp, snap, err = installstep.Footprint(ctx, db, sqlscript.Script(f), nil, opts)
				}
			} else {
				snap, err = installstep.Snapshot(ctx, db, opts)
			}
			if err != nil {
				var se *scratch.ScriptError
				var pe *pgsql.SyntaxError
				if errors.As(err, &se) || errors.As(err, &pe) {
					fmt.Fprintf(g.stderr, "ledgercheck: %s (installing %s failed)\n", oneLine(err.Error()), install)
					return fault.ErrFindings
				}
				return err
			}
			if footprint {
				return writeFootprint(g.stdout, format.value, fp)
			}
			return writeSnapshot(g.stdout, format.value, snap)
		},
	}
	cmd.Flags().StringVar(&install, "install", "", "migration FILE to install into a scratch database before the snapshot")
	cmd.Flags().IntVar(&dim, "dim", 1536, "vector dimension of the scratch database's prerequisites")
	cmd.Flags().Var(&format, "format", "output format: text or json (docs/json-schema.md)")
	cmd.Flags().BoolVar(&footprint, "footprint", false, "print only what --install FILE created, changed or dropped")
	cmd.Flags().BoolVar(&opts.IncludeEnvironment, "include-environment", false, "include the environment's schemas (auth, extensions, storage, ...)")
	cmd.Flags().BoolVar(&opts.IncludeExtensionObjects, "include-extension-objects", false, "include objects that belong to extensions")
	cmd.Flags().StringSliceVar(&opts.Schemas, "schema", nil, "only these schemas (repeatable)")
	addServerFlags(cmd, &sf)
	return cmd
}

func writeSnapshot(w io.Writer, format string, s *introspect.Snapshot) error {
	if format == "json" {
		return report.WriteSnapshotJSON(w, "ledgercheck", Version, s)
	}
	tw := &textWriter{w: w}
	for i, o := range groupObjects(s.Facts()) {
		if i > 0 {
			tw.line("")
		}
		tw.line(o.ObjectRef.String())
		for _, f := range o.Facts {
			if f.Shown() != "" {
				tw.value("  ", f.Attr, f.Shown())
			}
		}
	}
	return tw.err
}

func writeFootprint(w io.Writer, format string, fp *introspect.Footprint) error {
	if format == "json" {
		return report.WriteFootprintJSON(w, "ledgercheck", Version, fp)
	}
	tw := &textWriter{w: w}
	if fp.Empty() {
		tw.line("no changes")
		return tw.err
	}
	first := true
	sep := func() {
		if !first {
			tw.line("")
		}
		first = false
	}
	var created []introspect.Fact
	for _, o := range fp.Created {
		created = append(created, o.Facts...)
	}
	for _, o := range groupObjects(created) {
		sep()
		tw.line("created " + o.ObjectRef.String())
		for _, f := range o.Facts {
			if f.Shown() != "" {
				tw.value("  ", f.Attr, f.Shown())
			}
		}
	}
	var last introspect.ObjectRef
	for _, c := range fp.Changed {
		if c.Ref() != last {
			sep()
			tw.line("changed " + c.Ref().String())
			last = c.Ref()
		}
		before, after := c.Before, c.After
		if c.BeforeDisplay != "" || c.AfterDisplay != "" {
			before, after = c.BeforeDisplay, c.AfterDisplay
		}
		label := c.Attr
		if c.Class == introspect.Cosmetic {
			label += " (cosmetic: whitespace or comments only)"
		}
		if !strings.Contains(before, "\n") && !strings.Contains(after, "\n") {
			tw.line(fmt.Sprintf("  %s: %s -> %s", label, quoteEmpty(before), quoteEmpty(after)))
			continue
		}
		tw.line("  " + label + ":")
		tw.value("    ", "before", before)
		tw.value("    ", "after", after)
	}
	for _, o := range fp.Dropped {
		sep()
		tw.line("dropped " + o.ObjectRef.String())
	}
	return tw.err
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// groupObjects groups sorted facts by object, in a reading order: containers before contents.
func groupObjects(facts []introspect.Fact) []introspect.ObjectFacts {
	order := map[string]int{}
	for i, k := range []string{
		introspect.KindRole, introspect.KindSchema, introspect.KindExtension, introspect.KindDefaultPrivileges,
		introspect.KindType, introspect.KindAttribute, introspect.KindTable, introspect.KindColumn,
		introspect.KindConstraint, introspect.KindIndex, introspect.KindPolicy, introspect.KindTrigger,
		introspect.KindView, introspect.KindSequence, introspect.KindFunction,
	} {
		order[k] = i
	}
	var out []introspect.ObjectFacts
	idx := map[introspect.ObjectRef]int{}
	for _, f := range facts {
		i, ok := idx[f.Ref()]
		if !ok {
			i = len(out)
			idx[f.Ref()] = i
			out = append(out, introspect.ObjectFacts{ObjectRef: f.Ref()})
		}
		out[i].Facts = append(out[i].Facts, f)
	}
	// Facts come sorted by kind and object; a stable sort by kind order keeps objects sorted.
	slices.SortStableFunc(out, func(a, b introspect.ObjectFacts) int { return cmp.Compare(order[a.Kind], order[b.Kind]) })
	return out
}

// textWriter writes lines, keeping the first error.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(s string) {
	if t.err == nil {
		_, t.err = fmt.Fprintln(t.w, s)
	}
}

// value writes "attr: value", or for a multi-line value "attr: |" and the lines indented.
func (t *textWriter) value(indent, attr, v string) {
	if !strings.Contains(v, "\n") {
		t.line(indent + attr + ": " + v)
		return
	}
	t.line(indent + attr + ": |")
	for _, l := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
		t.line(indent + "    " + l)
	}
}
