package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// rerunFlags are the flags of the rerun command.
type rerunFlags struct {
	sf        serverFlags
	dim       int
	times     int
	from      string
	fixture   string
	noFixture bool
	out       outputFlags
}

func newRerunCmd(g *globals) *cobra.Command {
	f := &rerunFlags{out: newOutputFlags()}
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
applies FILE over it: the result must have the catalog of FILE's fresh install (no stale
overload, trigger, policy or column left behind) and no table may have fewer rows than before
(a table the new version drops counts as loss). The audits run in separate databases, in
parallel.

The fixture is, by default, the project's ledger fixture ` + rerun.DefaultFixture + `,
looked up in the working directory and then in each parent directory (so rerun finds it from
anywhere inside the repository). --fixture FILE loads another; --no-fixture loads none, and
the tables FILE creates (and the tables their foreign keys reference) are filled with a few
generated rows instead (from the catalog, with a fixed seed; the note says how many). Fixtures
may use :dim like the migrations.

Output: --format text (the phases, their findings and a conclusion for each), json, sarif,
github or html on stdout; --output FORMAT=PATH (repeatable) writes others from the same run.
Exit 0 when both audits pass, 1 on findings, 2 for input errors (a missing file, a bad flag),
3 when Postgres cannot be started or reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := f.request(g, args[0])
			if err != nil {
				return err
			}
			res, err := gate.Rerun(cmd.Context(), req)
			if err != nil {
				return err
			}
			return f.out.render(g, res.Report)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.dim, "dim", scratch.DefaultDim, "vector dimension of the prerequisites (and of :dim in the scripts)")
	fl.IntVar(&f.times, "times", rerun.DefaultTimes, "how many times to apply FILE, the install included")
	fl.StringVar(&f.from, "from", "", "previous version of FILE: also check the upgrade from it")
	fl.StringVar(&f.fixture, "fixture", "", "SQL loaded after the install (default: "+rerun.DefaultFixture+", found from the working directory up)")
	fl.BoolVar(&f.noFixture, "no-fixture", false, "load no fixture: generate rows")
	f.out.add(cmd)
	addServerFlags(cmd, &f.sf)
	return cmd
}

// request builds the gate's request for the rerun audit of file.
func (f *rerunFlags) request(g *globals, file string) (gate.Request, error) {
	if err := f.out.validate(); err != nil {
		return gate.Request{}, err
	}
	switch {
	case f.dim <= 0:
		return gate.Request{}, fault.Input(fmt.Errorf("--dim %d: want a positive dimension", f.dim))
	case f.times < 1:
		return gate.Request{}, fault.Input(fmt.Errorf("--times %d: want at least 1 (the install)", f.times))
	case f.noFixture && f.fixture != "":
		return gate.Request{}, fault.Input(errors.New("--fixture and --no-fixture exclude each other"))
	}
	src, err := g.scope().ReadFile(file, input.Migration)
	if err != nil {
		return gate.Request{}, fault.Input(err)
	}
	req, err := newRequest(g, &f.sf, "rerun", gate.Steps{Rerun: true})
	if err != nil {
		return req, err
	}
	req.Artifact, req.Times = gate.Variant{Name: "migration", File: file, Src: src, Dim: f.dim}, f.times
	if f.from != "" {
		src, err := g.scope().ReadFile(f.from, input.Migration)
		if err != nil {
			return req, fault.Input(fmt.Errorf("--from: %w", err))
		}
		req.Artifact.Previous = &gate.SQLFile{Name: f.from, Src: src}
	}
	if !f.noFixture {
		if req.Fixture, err = f.readFixture(g); err != nil {
			return req, err
		}
	}
	return req, nil
}

// readFixture reads --fixture, or the project's ledger fixture found from the working directory.
func (f *rerunFlags) readFixture(g *globals) (*gate.SQLFile, error) {
	fixture := f.fixture
	if fixture == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fault.Input(fmt.Errorf("finding the default fixture: %w", err))
		}
		if fixture, err = rerun.FindDefaultFixture(wd); err != nil {
			return nil, fault.Input(err)
		}
	}
	src, err := g.scope().ReadFile(fixture, input.Fixture)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--fixture: %w", err))
	}
	return &gate.SQLFile{Name: fixture, Src: src}, nil
}
