package migrations_test

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// fixCase is one of the five ranking fixes: a setup that writes data through agent_memories and a
// check that returns an error when the fixed behaviour is absent. The check must pass on both
// shipped files and fail on the first cut, which proves it tests the fix and not something the
// first cut already did.
type fixCase struct {
	setup func(l *ledgerDB) any
	check func(ctx context.Context, l *ledgerDB, data any) error
}

func runFix(t *testing.T, fc fixCase) {
	t.Helper()
	for _, v := range shipped {
		t.Run(v.name, func(t *testing.T) {
			l := install(t, v)
			if err := fc.check(context.Background(), l, fc.setup(l)); err != nil {
				t.Errorf("%s: %v", v.name, err)
			}
		})
	}
	t.Run("first_cut_fails", func(t *testing.T) {
		l := install(t, firstCut)
		err := fc.check(context.Background(), l, fc.setup(l))
		if err == nil {
			t.Errorf("the check passed on the first cut, so it does not test the fix")
		} else {
			t.Logf("first cut, as expected: %v", err)
		}
	})
}

const lockQuestion = "which database lock strategy did we choose for migrations?"

// Fix 1: a natural-language question ORs its lexemes; with AND-ed terms it matches no row.
func TestFix1DisjunctiveFullText(t *testing.T) {
	runFix(t, fixCase{
		setup: func(l *ledgerDB) any {
			l.add(decision{task: "t", content: "Use Postgres advisory locks for the migration runner", metadata: `{"step_index": 1}`})
			l.add(decision{task: "t", content: "Adopt a job queue backed by SKIP LOCKED", metadata: `{"step_index": 2}`})
			l.add(decision{task: "t", content: "Cache embeddings on local disk", metadata: `{"step_index": 3}`})
			// Precondition: the AND-ed query of the first cut matches none of these rows.
			var n int
			l.queryRow(`SELECT count(*) FROM public.agent_memories
				WHERE to_tsvector('english', content) @@ websearch_to_tsquery('english', $1)`, []any{lockQuestion}, &n)
			if n != 0 {
				l.t.Fatalf("precondition: websearch_to_tsquery matched %d rows, want 0", n)
			}
			return nil
		},
		check: func(ctx context.Context, l *ledgerDB, _ any) error {
			rows, err := match(ctx, l.conn, "p_workspace_id => 'ws', p_query => $1", lockQuestion)
			if err != nil {
				return err
			}
			matched := 0
			for _, r := range rows {
				if r.f("relevance") > 0 {
					matched++
				}
			}
			if matched != 2 {
				return fmt.Errorf("%d rows with relevance > 0, want 2 (the lock and the migration row, the SKIP LOCKED row)", matched)
			}
			for _, r := range rows {
				if src, ok := r.source(); !ok || src != "fts" {
					return fmt.Errorf("relevance_source = %v, want fts", r["relevance_source"])
				}
			}
			// Quotes and backslashes cannot break the tsquery; an all-stopword question gives
			// relevance 0 and no error.
			for _, q := range []string{`it's a "quoted" \ back\slash' o'neil's lock`, `the and of it`, `'`, `\`} {
				rows, err := match(ctx, l.conn, "p_workspace_id => 'ws', p_query => $1", q)
				if err != nil {
					return fmt.Errorf("question %q: %v", q, err)
				}
				for _, r := range rows {
					if q != `it's a "quoted" \ back\slash' o'neil's lock` && r.f("relevance") != 0 {
						return fmt.Errorf("question %q: relevance %v, want 0", q, r.f("relevance"))
					}
					if src, _ := r.source(); src != "fts" {
						return fmt.Errorf("question %q: relevance_source %v, want fts", q, r["relevance_source"])
					}
				}
			}
			return nil
		},
	})
}

// Fix 2: the scaled rank x = 10·ts_rank_cd saturates as x/(1+x): below 1 and monotone, where
// LEAST(x, 1) gave every non-trivial match exactly 1.0.
func TestFix2SaturatingRank(t *testing.T) {
	type ids struct{ dense, sparse string }
	runFix(t, fixCase{
		setup: func(l *ledgerDB) any {
			return ids{
				dense:  l.add(decision{task: "t", content: "lock the lock table, lock the lock file, then lock the queue lock", metadata: `{"step_index": 1}`}),
				sparse: l.add(decision{task: "t", content: "a lock was chosen after a long discussion", metadata: `{"step_index": 1}`}),
			}
		},
		check: func(ctx context.Context, l *ledgerDB, data any) error {
			d := data.(ids)
			rows, err := match(ctx, l.conn, "p_workspace_id => 'ws', p_query => 'lock'")
			if err != nil {
				return err
			}
			got := byID(rows)
			want := map[string]float64{}
			for _, id := range []string{d.dense, d.sparse} {
				var x float64
				l.queryRow(`SELECT 10 * ts_rank_cd(to_tsvector('english', m.content || ' '), to_tsquery('english', 'lock'))
					FROM public.agent_memories AS m WHERE m.id = $1::uuid`, []any{id}, &x)
				if x < 1 {
					l.t.Fatalf("precondition: scaled rank %v < 1, LEAST would not clip it", x)
				}
				want[id] = x / (1 + x)
			}
			for id, w := range want {
				r := got[id]
				if r == nil {
					return fmt.Errorf("row %s not returned", id)
				}
				if rel := r.f("relevance"); rel >= 1 || math.Abs(rel-w) > 1e-6 {
					return fmt.Errorf("relevance %v, want x/(1+x) = %v (< 1)", rel, w)
				}
			}
			if !(got[d.dense].f("relevance") > got[d.sparse].f("relevance")) {
				return fmt.Errorf("denser match relevance %v not above sparser %v: rank not monotone",
					got[d.dense].f("relevance"), got[d.sparse].f("relevance"))
			}
			return nil
		},
	})
}

// Fix 3: every component is clamped into [0,1]; cosine -1 gives relevance 0, and the row says
// cosine was the source.
func TestFix3ClampedCosine(t *testing.T) {
	type ids struct{ opposed, aligned, orthogonal string }
	runFix(t, fixCase{
		setup: func(l *ledgerDB) any {
			dim := l.v.dim
			return ids{
				opposed:    l.add(decision{task: "t", content: "opposed", metadata: `{"step_index": 1}`, thought: l.thought("opposed thought", unitVector(dim, 0, -1))}),
				aligned:    l.add(decision{task: "t", content: "aligned", metadata: `{"step_index": 1}`, thought: l.thought("aligned thought", unitVector(dim, 0, 1))}),
				orthogonal: l.add(decision{task: "t", content: "orthogonal", metadata: `{"step_index": 1}`, thought: l.thought("orthogonal thought", unitVector(dim, 1, 1))}),
			}
		},
		check: func(ctx context.Context, l *ledgerDB, data any) error {
			d := data.(ids)
			rows, err := match(ctx, l.conn, "p_workspace_id => 'ws', p_query_embedding => $1::text::vector",
				unitVector(l.v.dim, 0, 1))
			if err != nil {
				return err
			}
			got := byID(rows)
			want := map[string]float64{d.opposed: 0, d.aligned: 1, d.orthogonal: 0}
			for _, id := range []string{d.opposed, d.aligned, d.orthogonal} {
				r := got[id]
				if r == nil {
					return fmt.Errorf("row %s not returned", id)
				}
				if rel := r.f("relevance"); !near(rel, want[id]) {
					return fmt.Errorf("relevance %v, want %v", rel, want[id])
				}
			}
			for _, id := range []string{d.opposed, d.aligned, d.orthogonal} {
				r := got[id]
				if src, ok := r.source(); !ok || src != "cosine" {
					return fmt.Errorf("relevance_source %v, want cosine", r["relevance_source"])
				}
				for _, col := range []string{"recency", "dependency_boost"} {
					if v := r.f(col); v < 0 || v > 1 {
						return fmt.Errorf("%s = %v outside [0,1]", col, v)
					}
				}
			}
			// The opposed row loses nothing to its relevance: same score as the orthogonal one.
			if a, b := got[d.opposed].f("ranking_score"), got[d.orthogonal].f("ranking_score"); !near(a, b) {
				return fmt.Errorf("opposed score %v != orthogonal score %v", a, b)
			}
			return nil
		},
	})
}

// Fix 4: the dependency normaliser is the parameter p_dependency_saturation (default 3), so a
// decision's dependency term does not depend on what else matched.
//
// Note (the project's Open Brain facts, §7): the stored first cut already divides by a constant 3.0, so the
// "same term across two candidate sets" half passes there too; what fails on the first cut is
// the parameter itself.
func TestFix4FrozenDependencySaturation(t *testing.T) {
	type ids struct{ x, y string }
	runFix(t, fixCase{
		setup: func(l *ledgerDB) any {
			x := l.add(decision{project: "p2", task: "t", content: "x", metadata: `{"step_index": 1}`})
			y := l.add(decision{project: "p1", task: "t", content: "y", metadata: `{"step_index": 1}`})
			var deps []string
			for i := 0; i < 3; i++ {
				deps = append(deps, l.add(decision{project: "p3", task: "t", content: fmt.Sprint("dependent ", i), metadata: `{"step_index": 2}`}))
			}
			// x has one active dependent, y two: a max-degree normaliser would give x 1/2 over
			// all projects and 1/1 within p2 alone.
			l.exec(`INSERT INTO public.agent_decision_edges (from_memory_id, to_memory_id, relation) VALUES
				($1::uuid, $3::uuid, 'depends_on'), ($1::uuid, $4::uuid, 'depends_on'), ($2::uuid, $4::uuid, 'depends_on'),
				($2::uuid, $3::uuid, 'informs')`, deps[0], deps[1], x, y)
			return ids{x: x, y: y}
		},
		check: func(ctx context.Context, l *ledgerDB, data any) error {
			d := data.(ids)
			term := func(args string) (float64, error) {
				rows, err := match(ctx, l.conn, args)
				if err != nil {
					return 0, err
				}
				r := byID(rows)[d.x]
				if r == nil {
					return 0, fmt.Errorf("x not returned by (%s)", args)
				}
				return r.f("dependency_boost"), nil
			}
			all, err := term("p_workspace_id => 'ws'")
			if err != nil {
				return err
			}
			alone, err := term("p_workspace_id => 'ws', p_project_id => 'p2'")
			if err != nil {
				return err
			}
			if !near(all, 1.0/3) || !near(alone, 1.0/3) {
				return fmt.Errorf("dependency term %v (all) and %v (project p2 only), want 1/3 in both", all, alone)
			}
			for args, want := range map[string]float64{
				"p_workspace_id => 'ws', p_dependency_saturation => 1":    1,
				"p_workspace_id => 'ws', p_dependency_saturation => 2":    0.5,
				"p_workspace_id => 'ws', p_dependency_saturation => NULL": 1.0 / 3,
				"p_workspace_id => 'ws', p_dependency_saturation => 0":    1.0 / 3,
			} {
				got, err := term(args)
				if err != nil {
					return err
				}
				if !near(got, want) {
					return fmt.Errorf("(%s): dependency term %v, want %v", args, got, want)
				}
			}
			return nil
		},
	})
}

// Fix 5: the step e-folding distance defaults to 30, and distance is measured from
// max(p_current_step, the stream's newest step): a stale or missing p_current_step no longer
// gives every row recency 1.0, and 15 steps move the score by 0.15·(1 − e^(−15/30)).
func TestFix5StepRecency(t *testing.T) {
	type ids struct{ newest, oldest string }
	runFix(t, fixCase{
		setup: func(l *ledgerDB) any {
			var d ids
			for step := 0; step <= 15; step++ {
				id := l.add(decision{task: "t", content: fmt.Sprint("step ", step), metadata: fmt.Sprintf(`{"step_index": %d}`, step)})
				switch step {
				case 0:
					d.oldest = id
				case 15:
					d.newest = id
				}
			}
			return d
		},
		check: func(ctx context.Context, l *ledgerDB, data any) error {
			d := data.(ids)
			for _, args := range []string{
				"p_workspace_id => 'ws', p_current_step => 0, p_match_count => 50", // stale
				"p_workspace_id => 'ws', p_match_count => 50",                      // missing
			} {
				rows, err := match(ctx, l.conn, args)
				if err != nil {
					return err
				}
				got := byID(rows)
				newest, oldest := got[d.newest], got[d.oldest]
				if newest == nil || oldest == nil {
					return fmt.Errorf("(%s): rows missing", args)
				}
				if r := oldest.f("recency"); !near(r, math.Exp(-15.0/30)) {
					return fmt.Errorf("(%s): recency of the step-0 row %v, want e^(-15/30) = %v", args, r, math.Exp(-0.5))
				}
				if r := newest.f("recency"); !near(r, 1) {
					return fmt.Errorf("(%s): recency of the newest row %v, want 1", args, r)
				}
				want := 0.15 * (1 - math.Exp(-15.0/30))
				if diff := newest.f("ranking_score") - oldest.f("ranking_score"); !near(diff, want) {
					return fmt.Errorf("(%s): 15 steps moved the score by %v, want %v", args, diff, want)
				}
			}
			return nil
		},
	})
}
