package locks

import (
	"cmp"
	"slices"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// event is one lock (or rewrite) a statement of one run took on a relation that existed before
// the file, new in production's transaction (see [plan]).
type event struct {
	run     int // index of the run's trace
	step    Step
	stmt    scratch.Statement
	rel     Relation
	mode    Mode // the strongest new mode; 0 for a rewrite whose statement took no new lock
	rewrite bool
	// After the statement, until production's transaction ends: the statements the trace saw,
	// how long they ran, those that ran at least the slow threshold, and the last one's index.
	later int
	held  time.Duration
	slow  []scratch.Statement
	end   scratch.Statement
}

// notable reports whether the event blocks writes (or reads): the findings' material.
func (e *event) notable() bool { return e.rewrite || e.mode.BlocksWrites() }

// eventsOf turns one run's trace into events: per statement, per relation, the modes production
// would not hold yet in the statement's transaction (the trace reads the full set of an
// autocommitted statement's locks; production ran the earlier statements of the transaction in
// the same one), and each rewrite, charged to the statement of the transaction that committed
// it which took ACCESS EXCLUSIVE on the relation first (the one that took the transaction's
// last new lock otherwise: a rewrite shows only once its transaction committed).
func eventsOf(run int, t *Trace, sc *scratch.Script, p plan, slowAfter time.Duration) []*event {
	steps, rels := t.Steps(), t.Relations()
	var evs []*event
	seen := map[int]map[uint32][]Mode{} // per production transaction, per relation
	for k, st := range steps {
		if st.Stmt < 0 {
			continue
		}
		tx := p.tx[st.Stmt]
		if seen[tx] == nil {
			seen[tx] = map[uint32][]Mode{}
		}
		for _, rel := range relationsOf(st.Taken) {
			var fresh []Mode
			for _, tk := range st.Taken {
				if tk.Rel == rel && !coveredBy(seen[tx][rel], tk.Mode) {
					fresh = append(fresh, tk.Mode)
				}
			}
			if len(fresh) == 0 {
				continue
			}
			seen[tx][rel] = append(seen[tx][rel], fresh...)
			evs = append(evs, &event{run: run, step: steps[k], stmt: sc.Statements[st.Stmt], rel: rels[rel], mode: strongest(fresh)[0]})
		}
	}
	for k, st := range steps {
		for _, rel := range st.Rewritten {
			evs = chargeRewrite(evs, run, steps, k, rels[rel], sc)
		}
	}
	slices.SortStableFunc(evs, func(a, b *event) int {
		return cmp.Or(cmp.Compare(a.step.Stmt, b.step.Stmt), cmp.Compare(a.rel.Qualified(), b.rel.Qualified()))
	})
	for _, e := range evs {
		e.measureHeld(steps, sc, p, slowAfter)
	}
	return evs
}

// relationsOf are the relations of taken, each once, in order of first appearance.
func relationsOf(taken []Taken) []uint32 {
	var out []uint32
	for _, tk := range taken {
		if !slices.Contains(out, tk.Rel) {
			out = append(out, tk.Rel)
		}
	}
	return out
}

// coveredBy reports whether a lock of mode m changes nothing while held is held.
func coveredBy(held []Mode, m Mode) bool {
	for _, h := range held {
		if h.Covers(m) {
			return true
		}
	}
	return false
}

// chargeRewrite charges the rewrite of rel, first seen at steps[k] (committed by the transaction
// that ended before it), to an event of that transaction (see [eventsOf]).
func chargeRewrite(evs []*event, run int, steps []Step, k int, rel Relation, sc *scratch.Script) []*event {
	if k == 0 {
		return evs
	}
	start := k - 1
	for start > 0 && !steps[start].Idle {
		start--
	}
	for _, e := range evs {
		if e.run == run && e.rel.OID == rel.OID && e.mode == AccessExclusive && stepIn(steps, e.step.Stmt, start, k-1) {
			e.rewrite = true
			return evs
		}
	}
	last := steps[k-1]
	return append(evs, &event{run: run, step: last, stmt: sc.Statements[last.Stmt], rel: rel, rewrite: true})
}

// stepIn reports whether the step of statement stmt is among steps[from..to].
func stepIn(steps []Step, stmt, from, to int) bool {
	for i := from; i <= to; i++ {
		if steps[i].Stmt == stmt {
			return true
		}
	}
	return false
}

// measureHeld fills in what production's transaction runs after the event's statement.
func (e *event) measureHeld(steps []Step, sc *scratch.Script, p plan, slowAfter time.Duration) {
	tx := p.tx[e.step.Stmt]
	e.end = e.stmt
	for _, st := range steps {
		if st.Stmt <= e.step.Stmt || p.tx[st.Stmt] != tx { // the final step's Stmt is -1
			continue
		}
		e.later++
		e.held += st.Took
		e.end = sc.Statements[st.Stmt]
		if st.Took >= slowAfter {
			e.slow = append(e.slow, sc.Statements[st.Stmt])
		}
	}
}
