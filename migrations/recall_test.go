package migrations_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// pruningCorpus writes decisions through agent_memories into two workspaces:
//   - prune: 1,300 decisions in 8 task streams and the NULL stream, with superseded rows (among
//     them the 25 newest of the NULL stream), stale search documents (content edited after
//     enrollment), rationales, dependency edges and pins;
//   - many: 400 decisions in 100 streams, more than match_decision_ledger reads off the stream
//     index, so its anchors come from a pass over the candidates.
func pruningCorpus(l *ledgerDB) {
	l.t.Helper()
	l.exec(`
		INSERT INTO public.agent_memories
		  (workspace_id, project_id, task_id, memory_type, summary, content, confidence, lifecycle_status, metadata)
		SELECT 'prune', 'p' || (g % 3), CASE WHEN g % 13 = 0 THEN NULL ELSE 'a' || (g % 8) END, 'decision', 'prune ' || g,
		       (SELECT string_agg((ARRAY['queue','runner','latency','migration','coupon','lock','cache','ledger','index','audit',
		                                 'deploy','rollback','tenant','schema','shard','replica'])[1 + (hashtext(g || ':' || k) & 2147483647) % 16], ' ')
		          FROM generate_series(1, 4 + g % 7) AS k),
		       ((g * 7 % 101) / 100.0)::numeric(3,2),
		       CASE WHEN g % 11 = 0 THEN 'superseded' ELSE 'active' END,
		       CASE WHEN g % 5 = 0 THEN jsonb_build_object('step_index', g / 8, 'rationale', 'because of the queue ' || g)
		            ELSE jsonb_build_object('step_index', g / 8) END
		FROM generate_series(1, 1300) AS g`)
	l.exec(`
		INSERT INTO public.agent_memories (workspace_id, project_id, task_id, memory_type, summary, content, confidence, metadata)
		SELECT 'many', 'p' || (g % 3), 'm' || (g % 100), 'decision', 'many ' || g,
		       CASE WHEN g % 3 = 0 THEN 'queue latency ' || g ELSE 'coupon lock ' || g END,
		       ((g * 13 % 101) / 100.0)::numeric(3,2), jsonb_build_object('step_index', g % 9)
		FROM generate_series(1, 400) AS g`)
	// The NULL stream's 25 newest rows are not candidates unless superseded rows are included.
	l.exec(`
		UPDATE public.agent_memories SET lifecycle_status = 'superseded'
		WHERE id IN (SELECT l.memory_id FROM public.agent_decision_ledger AS l
		             WHERE l.workspace_id = 'prune' AND l.task_id IS NULL ORDER BY l.step_index DESC LIMIT 25)`)
	// Stale documents: the content changed after enrollment.
	l.exec(`UPDATE public.agent_memories SET content = content || ' queue runner'
		WHERE workspace_id = 'prune' AND substr(summary, 7)::int % 17 = 0`)
	l.exec(`
		INSERT INTO public.agent_decision_edges (from_memory_id, to_memory_id, relation)
		SELECT a.id, b.id, 'depends_on'
		FROM public.agent_memories AS a
		JOIN public.agent_memories AS b ON b.workspace_id = a.workspace_id
		  AND b.summary = split_part(a.summary, ' ', 1) || ' ' || (split_part(a.summary, ' ', 2)::int - 1)
		WHERE a.workspace_id IN ('prune', 'many') AND split_part(a.summary, ' ', 2)::int % 6 = 0`)
	rows, err := l.conn.Query(context.Background(), `
		SELECT m.id::text FROM public.agent_memories AS m
		WHERE m.workspace_id = 'prune' AND substr(m.summary, 7)::int IN (40, 400, 1001)`)
	if err != nil {
		l.t.Fatal(err)
	}
	var pins []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			l.t.Fatal(err)
		}
		pins = append(pins, id)
	}
	if err := rows.Err(); err != nil {
		l.t.Fatal(err)
	}
	for _, id := range pins {
		l.pin(id)
	}
	l.exec(`ANALYZE public.agent_memories, public.agent_decision_ledger, public.agent_decision_edges`)
}

// pruningCalls are the argument lists (after p_workspace_id and p_query) the tests below call
// match_decision_ledger with.
var pruningCalls = []string{
	"",
	", p_current_step => 400",
	", p_include_superseded => true",
	", p_project_id => 'p1'",
	", p_task_id => 'a3'",
	", p_w_similarity => 0.9, p_w_importance => 0.05",
	", p_w_similarity => 0, p_w_importance => 0.5",
}

var pruningQuestions = []string{
	"which queue runner did we pick for the migration latency?",
	"which coupon?",
	"",
}

// Pruning only drops rows that cannot reach the first p_match_count: the first k rows of a call
// with p_match_count => k are the first k of a call that asks for every row (more rows than
// there are stream heads, so nothing is pruned), column for column, in the same order.
func TestRecallPruningKeepsTheRanking(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		pruningCorpus(l)
		for _, ws := range []string{"prune", "many"} {
			for _, q := range pruningQuestions {
				for _, extra := range pruningCalls {
					base := "p_workspace_id => $1, p_query => nullif($2, '')" + extra
					all := l.match(base+", p_match_count => 100000", ws, q)
					for _, k := range []int{1, 10, 25} {
						got := l.match(fmt.Sprintf("%s, p_match_count => %d", base, k), ws, q)
						want := all
						if len(want) > k {
							want = want[:k]
						}
						if !reflect.DeepEqual(got, want) {
							t.Errorf("%s %q (%s), %d rows: pruned result differs from the first rows of the full ranking\n got: %v\nwant: %v",
								ws, q, extra, k, got, want)
						}
					}
				}
			}
		}
	})
}

// Fix 5's anchor, whichever way it is found (the stream index, or a pass over the candidates for
// a workspace with many streams): each row's recency is exp(-d/30), d measured from the newest
// step of its stream among the candidates, or from p_current_step when that is newer. The
// NULL stream's anchor is its newest candidate, below 25 superseded rows.
func TestRecallStreamAnchors(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		pruningCorpus(l)
		for _, ws := range []string{"prune", "many"} {
			for _, c := range []struct {
				args       string
				project    string
				superseded bool
				current    int
			}{
				{args: ""},
				{args: ", p_include_superseded => true", superseded: true},
				{args: ", p_project_id => 'p2'", project: "p2"},
				{args: ", p_current_step => 60", current: 60},
			} {
				rows := l.match("p_workspace_id => $1, p_match_count => 100000"+c.args, ws)
				// The newest step of each stream among the candidates, by the definition.
				gate := ""
				if l.v.port {
					gate = "AND m.can_use_as_evidence AND m.review_status NOT IN ('rejected', 'restricted')"
				}
				anchors := map[string]float64{}
				q, err := l.conn.Query(context.Background(), `
					SELECT coalesce(l.task_id, '<null>'), max(l.step_index)
					FROM public.agent_decision_ledger AS l
					JOIN public.agent_memories AS m ON m.id = l.memory_id
					WHERE l.workspace_id = $1 AND ($2 = '' OR l.project_id = $2)
					  AND ($3 OR m.lifecycle_status = 'active') `+gate+`
					GROUP BY 1`, ws, c.project, c.superseded)
				if err != nil {
					t.Fatal(err)
				}
				for q.Next() {
					var task string
					var step int
					if err := q.Scan(&task, &step); err != nil {
						t.Fatal(err)
					}
					anchors[task] = float64(step)
				}
				if err := q.Err(); err != nil {
					t.Fatal(err)
				}
				streams := map[string]string{}
				s, err := l.conn.Query(context.Background(), `
					SELECT l.memory_id::text, coalesce(l.task_id, '<null>') FROM public.agent_decision_ledger AS l WHERE l.workspace_id = $1`, ws)
				if err != nil {
					t.Fatal(err)
				}
				for s.Next() {
					var id, task string
					if err := s.Scan(&id, &task); err != nil {
						t.Fatal(err)
					}
					streams[id] = task
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				if len(rows) == 0 {
					t.Fatalf("%s (%s): no rows", ws, c.args)
				}
				for _, r := range rows {
					newest, ok := anchors[streams[r.id()]]
					if !ok {
						t.Fatalf("%s (%s): row %s of stream %s is not a candidate", ws, c.args, r.id(), streams[r.id()])
					}
					anchor := math.Max(newest, float64(c.current))
					want := math.Exp(-math.Max(anchor-r.f("step_index"), 0) / 30)
					if got := r.f("recency"); math.Abs(got-want) > 1e-12 {
						t.Errorf("%s (%s): row %s of stream %s at step %v: recency %v, want %v (anchor %v)",
							ws, c.args, r.id(), streams[r.id()], r.f("step_index"), got, want, anchor)
					}
				}
			}
		}
	})
}
