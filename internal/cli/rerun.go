package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/gate"
	"ledgercheck/internal/input"
	"ledgercheck/internal/rerun"
	"ledgercheck/internal/scratch"
)

func newRerunCmd(g *globals) *cobra.Command {
	var (
		sf        serverFlags
		dim       int
		times     int
		from      string
		fixture   string
		noFixture bool
		out       = newOutputFlags()
	)
	cmd := &cobra.Command{
		Use:   "rerun FILE",
		Short: "Prove a migration is safe to run again, and over its previous version, with no row lost",
		Long: `rerun installs the Supabase environment, the Open Brain prerequisites at dimension --dim and
FILE into a scratch database, loads a fixture, and takes a catalog snapshot and a content digest of
every user table (row count and an order-independent hash of the rows). It then applies FILE again
--times minus one times. Each run must succeed, and after each the catalog and every table must be
as they were after the first run. The report gives the first statement that failed
(file:line:col and the server's error), every catalog difference, and every table whose rows were
lost, duplicated, changed or added.

With --from PREVIOUS it also installs PREVIOUS into a second database, loads the fixture and
applies FILE over it: the result must have the catalog of a fresh install of FILE (no stale
overload, trigger, policy or column left behind) and no table may have fewer rows than before
(a table the new version drops counts as loss). The audits run in separate databases, in
parallel.

The fixture is, by default, the project's ledger fixture ` + rerun.DefaultFixture + `,
looked up in the working directory and then in each parent directory (so rerun finds it from
anywhere inside the repository). --fixture FILE loads another; --no-fixture loads none.
Fixtures may use :dim like the migrations.

Output: --format text (the phases, their findings and a conclusion for each), json, sarif,
github or html. Exit 0 when both audits pass, 1 on findings, 2 for input errors (a missing file, a bad
flag), 3 when Postgres cannot be started or reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := out.validate(); err != nil {
				return err
			}
			if dim <= 0 {
				return fault.Input(fmt.Errorf("--dim %d: want a positive dimension", dim))
			}
			if times < 1 {
				return fault.Input(fmt.Errorf("--times %d: want at least 1 (the install)", times))
			}
			if noFixture && fixture != "" {
				return fault.Input(errors.New("--fixture and --no-fixture exclude each other"))
			}
			src, err := input.ReadFile(args[0], input.Migration)
			if err != nil {
				return fault.Input(err)
			}
			req := gate.Request{
				Artifact: gate.Variant{Name: "migration", File: args[0], Src: src, Dim: dim},
				Steps:    gate.Steps{Rerun: true, RerunApart: true}, Command: "rerun",
				Times: times,
				Start: func(ctx context.Context) (*scratch.Server, error) { return g.startServer(ctx, &sf) },
				Logf:  func(format string, args ...any) { g.logf(format, args...) },
				Tool:  "ledgercheck", Version: Version, Root: ".",
			}
			if from != "" {
				src, err := input.ReadFile(from, input.Migration)
				if err != nil {
					return fault.Input(fmt.Errorf("--from: %w", err))
				}
				req.Artifact.Previous = &gate.Script{Name: from, Src: src}
			}
			if !noFixture {
				if fixture == "" {
					wd, err := os.Getwd()
					if err != nil {
						return fault.Input(fmt.Errorf("finding the default fixture: %w", err))
					}
					if fixture, err = rerun.FindDefaultFixture(wd); err != nil {
						return fault.Input(err)
					}
				}
				src, err := input.ReadFile(fixture, input.Fixture)
				if err != nil {
					return fault.Input(fmt.Errorf("--fixture: %w", err))
				}
				req.Fixture = &gate.Script{Name: fixture, Src: src}
			}
			res, err := gate.Run(ctx, req)
			if err != nil {
				return err
			}
			return out.render(g, res.Report)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&dim, "dim", 1536, "vector dimension of the prerequisites (and of :dim in the scripts)")
	fl.IntVar(&times, "times", rerun.DefaultTimes, "how many times to apply FILE, the install included")
	fl.StringVar(&from, "from", "", "previous version of FILE: also check the upgrade from it")
	fl.StringVar(&fixture, "fixture", "", "SQL loaded after the install (default: "+rerun.DefaultFixture+", found from the working directory up)")
	fl.BoolVar(&noFixture, "no-fixture", false, "load no fixture")
	out.add(cmd)
	addServerFlags(cmd, &sf)
	return cmd
}
