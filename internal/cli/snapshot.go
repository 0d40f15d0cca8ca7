package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// snapshotFlags are the flags of the snapshot command.
type snapshotFlags struct {
	sf        serverFlags
	install   string
	dim       int
	format    formatFlag
	footprint bool
	opts      introspect.Options
}

func newSnapshotCmd(g *globals) *cobra.Command {
	f := &snapshotFlags{format: formatFlag{value: "text", choices: []string{"text", "json"}}}
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
			req, err := f.request(cmd, g)
			if err != nil {
				return err
			}
			res, err := gate.Snapshot(cmd.Context(), req)
			if _, failed := gate.InstallFinding(err); failed {
				fmt.Fprintf(g.stderr, "ledgercheck: %s (installing %s failed)\n", oneLine(err.Error()), f.install)
				return fault.ErrFindings
			}
			if err != nil {
				return err
			}
			return f.write(g, res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.install, "install", "", "migration FILE to install into a scratch database before the snapshot")
	fl.IntVar(&f.dim, "dim", scratch.DefaultDim, "vector dimension of the scratch database's prerequisites")
	fl.Var(&f.format, "format", "output format: text or json (docs/json-schema.md)")
	fl.BoolVar(&f.footprint, "footprint", false, "print only what --install FILE created, changed or dropped")
	fl.BoolVar(&f.opts.IncludeEnvironment, "include-environment", false, "include the environment's schemas (auth, extensions, storage, ...)")
	fl.BoolVar(&f.opts.IncludeExtensionObjects, "include-extension-objects", false, "include objects that belong to extensions")
	fl.StringSliceVar(&f.opts.Schemas, "schema", nil, "only these schemas (repeatable)")
	addServerFlags(cmd, &f.sf)
	return cmd
}

// request builds the gate's snapshot request from the flags.
func (f *snapshotFlags) request(cmd *cobra.Command, g *globals) (gate.SnapshotRequest, error) {
	if f.dim <= 0 {
		return gate.SnapshotRequest{}, fault.Input(fmt.Errorf("--dim %d: want a positive dimension", f.dim))
	}
	if f.footprint && f.install == "" {
		return gate.SnapshotRequest{}, fault.Input(errors.New("--footprint needs --install FILE: it shows what FILE changed"))
	}
	req := gate.SnapshotRequest{Dim: f.dim, Options: f.opts,
		Start: func(ctx context.Context, t []scratch.TemplateSpec) (*scratch.Server, error) {
			return g.startServer(ctx, &f.sf, t)
		},
		Logf: func(format string, args ...any) { g.logf(format, args...) }}
	if f.install == "" && f.sf.dsn != "" {
		if cmd.Flags().Changed("dim") {
			return req, fault.Input(errors.New("--dim applies to scratch databases; with --dsn and no --install the database at --dsn is only read"))
		}
		req.DSN = f.sf.dsn
	}
	if f.install != "" {
		src, err := g.scope().ReadFile(f.install, input.Migration)
		if err != nil {
			return req, fault.Input(err)
		}
		req.Install = &gate.SQLFile{Name: f.install, Src: src}
	}
	return req, nil
}

// write prints the snapshot, or the footprint, in the chosen format.
func (f *snapshotFlags) write(g *globals, res *gate.SnapshotResult) error {
	switch {
	case f.footprint && f.format.value == "json":
		return report.WriteFootprintJSON(g.stdout, "ledgercheck", Version, res.Footprint)
	case f.footprint:
		return report.WriteFootprintText(g.stdout, res.Footprint)
	case f.format.value == "json":
		return report.WriteSnapshotJSON(g.stdout, "ledgercheck", Version, res.Snapshot)
	}
	return report.WriteSnapshotText(g.stdout, res.Snapshot)
}
