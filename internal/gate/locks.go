package gate

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/locks"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// The lock trace (internal/locks) rides along the runs of a variant's file that happen anyway:
// its install, each rerun and the upgrade each carry an observer that reads, after each
// statement, what it locked. It adds no database and no install (docs/architecture.md, "The
// lock trace").

// lockRuns are a variant's traced runs, as they start (the upgrade's beside the others), and,
// once every run is over, the variant's locks phase.
type lockRuns struct {
	mu    sync.Mutex
	runs  []locks.Run
	phase *report.PhaseResult
}

// traced returns sc with an observer that traces it as the run called name, reading on conn (a
// superuser session of the database it runs in, idle while it runs); sc itself when the request
// does not trace locks.
func (p *pipeline) traced(r *variantRun, sc *scratch.Script, name string, conn *pgx.Conn) *scratch.Script {
	if !p.steps.Locks || sc == nil {
		return sc
	}
	c := *sc
	c.Observer = r.lockTrace(name, conn)
	return &c
}

// lockTrace starts the trace of the run called name of r's file, reading on conn.
func (r *variantRun) lockTrace(name string, conn *pgx.Conn) scratch.Observer {
	t := locks.NewTrace(name, conn)
	r.locks.mu.Lock()
	defer r.locks.mu.Unlock()
	r.locks.runs = append(r.locks.runs, locks.Run{Name: name, Trace: t})
	return t
}

// observe is the rerun audit's Options.Observe: the trace of each rerun and of the upgrade.
func (p *pipeline) observe(r *variantRun) func(string, *pgx.Conn) scratch.Observer {
	if !p.steps.Locks {
		return nil
	}
	return r.lockTrace
}

// runOrder ranks a traced run: the install, the reruns in order, the upgrade.
func runOrder(name string) int {
	if n, ok := strings.CutPrefix(name, "run "); ok {
		k, _ := strconv.Atoi(n)
		return k
	}
	if name == "install" {
		return 0
	}
	return 1 << 20
}

// finishLocks is the locks step's end, once every run of the variant is over: the sizes of the
// locked tables in its database (the fixture loaded, read by the run's reader role), and its
// phase "locks VARIANT".
func (p *pipeline) finishLocks(ctx context.Context, r *variantRun, db *scratch.Database, sc *scratch.Script) error {
	if !p.steps.Locks || r.file == nil {
		return nil
	}
	t0 := time.Now()
	r.locks.mu.Lock()
	runs := slices.Clone(r.locks.runs)
	r.locks.mu.Unlock()
	slices.SortStableFunc(runs, func(a, b locks.Run) int { return cmp.Compare(runOrder(a.Name), runOrder(b.Name)) })
	in := locks.Input{Name: r.v.Name, File: r.v.File, Parsed: r.file, Script: sc, Runs: runs,
		Fixture: p.fixture != nil && r.fixtureErr == nil, Stats: p.tableStats, Accept: p.lockAccept, Slow: p.slow}
	if rels := locks.Locked(runs); len(rels) > 0 {
		reader, err := db.ConnectReader(ctx)
		if err != nil {
			return err
		}
		defer reader.Close(context.WithoutCancel(ctx))
		if in.Sizes, err = locks.Measure(ctx, reader, rels); err != nil {
			return db.Blame(ctx, "measuring the locked tables", err)
		}
	}
	ph := locks.Phase(in)
	ph.Duration = time.Since(t0)
	r.locks.phase = &ph
	return nil
}
