package migrations_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// forEach runs f on a fresh install of each shipped file.
func forEach(t *testing.T, f func(t *testing.T, l *ledgerDB)) {
	for _, v := range shipped {
		t.Run(v.name, func(t *testing.T) { f(t, install(t, v)) })
	}
}

type ledgerRow struct {
	step       int
	importance float64
	rationale  *string
	workspace  string
	task       *string
}

func (l *ledgerDB) ledgerRow(memoryID string) (ledgerRow, bool) {
	l.t.Helper()
	var r ledgerRow
	err := l.conn.QueryRow(context.Background(), `
		SELECT step_index, importance::float8, rationale, workspace_id, task_id
		FROM public.agent_decision_ledger WHERE memory_id = $1::uuid`, memoryID).
		Scan(&r.step, &r.importance, &r.rationale, &r.workspace, &r.task)
	if err != nil {
		if strings.Contains(err.Error(), "no rows") {
			return r, false
		}
		l.t.Fatal(err)
	}
	return r, true
}

func TestEnrollment(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		// Source 1 wins over source 2 when both are present.
		nested := l.add(decision{task: "a", content: "nested", confidence: 0.8,
			metadata: `{"agent_memory": {"step_index": 7}, "step_index": 99, "rationale": "because"}`})
		flat := l.add(decision{task: "a", content: "flat", metadata: `{"step_index": 3, "rationale": ""}`})
		// Source 3: max+1 within the (workspace, task) stream: after 7 in task a -> 8; a new
		// task starts at 0; another workspace's task a is its own stream; task NULL is a stream.
		next := l.add(decision{task: "a", content: "next"})
		fresh := l.add(decision{task: "b", content: "fresh"})
		other := l.add(decision{workspace: "ws2", task: "a", content: "other workspace"})
		null1 := l.add(decision{content: "no task 1"})
		null2 := l.add(decision{content: "no task 2", metadata: `{"agent_memory": {"runtime": "x", "step_index": null}}`})
		lesson := l.add(decision{memoryType: "lesson", task: "a", content: "not a decision", metadata: `{"step_index": 1}`})

		want := map[string]int{nested: 7, flat: 3, next: 8, fresh: 0, other: 0, null1: 0, null2: 1}
		for id, step := range want {
			r, ok := l.ledgerRow(id)
			if !ok {
				t.Errorf("decision %s not enrolled", id)
				continue
			}
			if r.step != step {
				t.Errorf("decision %s: step_index %d, want %d", id, r.step, step)
			}
		}
		if r, _ := l.ledgerRow(nested); r.importance != 0.8 || r.rationale == nil || *r.rationale != "because" {
			t.Errorf("nested: importance %v rationale %v, want 0.8 and \"because\"", r.importance, r.rationale)
		}
		if r, _ := l.ledgerRow(flat); r.importance != 0.5 || r.rationale != nil {
			t.Errorf("flat: importance %v rationale %v, want 0.5 and NULL (empty rationale)", r.importance, r.rationale)
		}
		if r, _ := l.ledgerRow(other); r.workspace != "ws2" || r.task == nil || *r.task != "a" {
			t.Errorf("other: workspace %q task %v", r.workspace, r.task)
		}
		if _, ok := l.ledgerRow(lesson); ok {
			t.Errorf("a lesson was enrolled")
		}

		// A step that is not a non-negative integer aborts the write with a message naming it.
		for _, md := range []string{`{"step_index": "3.5"}`, `{"agent_memory": {"step_index": "three"}}`, `{"step_index": -1}`} {
			_, err := l.conn.Exec(context.Background(), `
				INSERT INTO public.agent_memories (workspace_id, memory_type, summary, content, metadata)
				VALUES ('ws', 'decision', 'bad', 'bad', $1::jsonb)`, md)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Errorf("metadata %s: err %v, want a server error", md, err)
				continue
			}
			if pe.Code != "22P02" || !strings.Contains(pe.Message, "step_index") || !strings.Contains(pe.Message, "non-negative integer") {
				t.Errorf("metadata %s: %s %q, want 22P02 naming step_index", md, pe.Code, pe.Message)
			}
		}
		var n int
		l.queryRow(`SELECT count(*) FROM public.agent_memories WHERE content = 'bad'`, nil, &n)
		if n != 0 {
			t.Errorf("%d memories with a bad step were written", n)
		}
	})
}

// With no embedding anywhere, recall ranks on full text alone.
func TestFullTextOnlyPath(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		hit := l.add(decision{task: "t", content: "Retry webhooks with exponential backoff", metadata: `{"step_index": 1, "rationale": "the partner API rate limits bursts"}`})
		rationaleHit := l.add(decision{task: "t", content: "Store secrets in the vault", metadata: `{"step_index": 1, "rationale": "webhook signing keys rotated"}`})
		miss := l.add(decision{task: "t", content: "Name branches after tickets", metadata: `{"step_index": 1}`})
		var n int
		l.queryRow(`SELECT count(*) FROM public.thoughts WHERE embedding IS NOT NULL`, nil, &n)
		if n != 0 {
			t.Fatalf("precondition: %d embedded thoughts", n)
		}
		rows := l.match("p_workspace_id => 'ws', p_query => 'how do we handle webhook retries?'")
		got := byID(rows)
		for _, r := range rows {
			if src, _ := r.source(); src != "fts" {
				t.Errorf("relevance_source %v, want fts", src)
			}
		}
		if !(got[hit].f("relevance") > got[rationaleHit].f("relevance") && got[rationaleHit].f("relevance") > 0) {
			t.Errorf("relevance hit %v, rationale-only hit %v: want hit > rationale hit > 0",
				got[hit].f("relevance"), got[rationaleHit].f("relevance"))
		}
		if got[miss].f("relevance") != 0 {
			t.Errorf("non-matching row relevance %v", got[miss].f("relevance"))
		}
		if rows[0].id() != hit {
			t.Errorf("first row %s, want the best full-text match", rows[0].id())
		}
		// No query at all: source none, relevance 0.
		for _, r := range l.match("p_workspace_id => 'ws'") {
			if src, _ := r.source(); src != "none" || r.f("relevance") != 0 {
				t.Errorf("no query: source %v relevance %v", src, r.f("relevance"))
			}
		}
		// A content edit in agent_memories is seen at once: recall recomputes a stale stored document.
		l.exec(`UPDATE public.agent_memories SET content = 'Name webhooks after tickets' WHERE id = $1::uuid`, miss)
		if r := byID(l.match("p_workspace_id => 'ws', p_query => 'webhook'"))[miss]; r.f("relevance") == 0 {
			t.Errorf("after a content edit the row still does not match: stale search document")
		}
	})
}

// With embeddings of the variant's dimension, rows with an embedding rank by cosine; rows
// without one fall back to full text, and the source says which.
func TestCosinePath(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		dim := l.v.dim
		near := l.add(decision{task: "t", content: "close", metadata: `{"step_index": 1}`, thought: l.thought("close", unitVector(dim, 3, 1))})
		far := l.add(decision{task: "t", content: "far", metadata: `{"step_index": 1}`, thought: l.thought("far", unitVector(dim, 4, 1))})
		bare := l.add(decision{task: "t", content: "close but unembedded", metadata: `{"step_index": 1}`})
		var typ string
		l.queryRow(`SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			WHERE attrelid = 'public.thoughts'::regclass AND attname = 'embedding'`, nil, &typ)
		if typ != "vector("+strconv.Itoa(dim)+")" {
			t.Fatalf("thoughts.embedding is %s, want vector(%d)", typ, dim)
		}
		got := byID(l.match("p_workspace_id => 'ws', p_query => 'close', p_query_embedding => $1::text::vector", unitVector(dim, 3, 1)))
		if r := got[near]; r.f("relevance") != 1 || mustSource(r) != "cosine" {
			t.Errorf("near: relevance %v source %v", r.f("relevance"), mustSource(r))
		}
		if r := got[far]; r.f("relevance") != 0 || mustSource(r) != "cosine" {
			t.Errorf("far: relevance %v source %v", r.f("relevance"), mustSource(r))
		}
		if r := got[bare]; r.f("relevance") <= 0 || mustSource(r) != "fts" {
			t.Errorf("unembedded: relevance %v source %v, want an fts match", r.f("relevance"), mustSource(r))
		}
		// A query embedding of the other dimension is an error, not a silent zero.
		other := 1536
		if dim == 1536 {
			other = 1024
		}
		if _, err := match(context.Background(), l.conn, "p_workspace_id => 'ws', p_query_embedding => $1::text::vector", unitVector(other, 0, 1)); err == nil {
			t.Errorf("a %d-dim query embedding against %d-dim thoughts did not fail", other, dim)
		}
	})
}

func mustSource(r row) string {
	s, _ := r.source()
	return s
}

func TestPinnedFirst(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		strong := l.add(decision{task: "t", content: "strong", confidence: 1, metadata: `{"step_index": 9}`})
		weak := l.add(decision{task: "t", content: "weak", confidence: 0, metadata: `{"step_index": 0}`})
		rows := l.match("p_workspace_id => 'ws'")
		if rows[0].id() != strong {
			t.Fatalf("precondition: the strong row should lead before pinning")
		}
		l.pin(weak)
		rows = l.match("p_workspace_id => 'ws'")
		if rows[0].id() != weak || rows[0]["pinned"] != true || rows[1]["pinned"] != false {
			t.Errorf("after pinning: first %s pinned=%v, want the weak row pinned first", rows[0].id(), rows[0]["pinned"])
		}
		if !(rows[0].f("ranking_score") < rows[1].f("ranking_score")) {
			t.Errorf("pinned row should lead despite a lower score")
		}
	})
}

func TestSupersededHandling(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		l.add(decision{task: "t", content: "anchor", metadata: `{"step_index": 5}`})
		active := l.add(decision{task: "t", content: "twin", confidence: 0.7, metadata: `{"step_index": 2}`})
		superseded := l.add(decision{task: "t", content: "twin", confidence: 0.7, lifecycle: "superseded", metadata: `{"step_index": 2}`})
		stale := l.add(decision{task: "t", content: "stale", lifecycle: "stale", metadata: `{"step_index": 2}`})
		got := byID(l.match("p_workspace_id => 'ws'"))
		if got[superseded] != nil || got[stale] != nil {
			t.Errorf("non-active rows returned by default")
		}
		got = byID(l.match("p_workspace_id => 'ws', p_include_superseded => true"))
		if got[superseded] == nil || got[stale] == nil {
			t.Fatalf("non-active rows missing with p_include_superseded")
		}
		if d := got[active].f("ranking_score") - got[superseded].f("ranking_score"); math.Abs(d-0.30) > 1e-9 {
			t.Errorf("superseded twin scores %v below the active one, want 0.30", d)
		}
		if got[superseded]["lifecycle_status"] != "superseded" {
			t.Errorf("lifecycle_status %v", got[superseded]["lifecycle_status"])
		}
	})
}

func TestTouchDecisionRecall(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		a := l.add(decision{content: "a"})
		b := l.add(decision{content: "b"})
		lesson := l.add(decision{memoryType: "lesson", content: "c"})
		var n int
		l.queryRow(`SELECT public.touch_decision_recall(ARRAY[$1::uuid, $2::uuid, $3::uuid])`, []any{a, b, lesson}, &n)
		if n != 2 {
			t.Errorf("touched %d rows, want 2 (the lesson has no ledger row)", n)
		}
		l.queryRow(`SELECT public.touch_decision_recall(ARRAY[$1::uuid], true)`, []any{a}, &n)
		if n != 1 {
			t.Errorf("touched %d rows, want 1", n)
		}
		for id, want := range map[string][2]int{a: {2, 1}, b: {1, 0}} {
			var recall, used int
			var stamped bool
			l.queryRow(`SELECT recall_count, used_count, last_recalled_at IS NOT NULL
				FROM public.agent_decision_ledger WHERE memory_id = $1::uuid`, []any{id}, &recall, &used, &stamped)
			if recall != want[0] || used != want[1] || !stamped {
				t.Errorf("%s: recall %d used %d stamped %v, want %v", id, recall, used, stamped, want)
			}
		}
	})
}

func TestRecallPolicyStats(t *testing.T) {
	forEach(t, func(t *testing.T, l *ledgerDB) {
		l.apply("../testdata/fixtures/ledger_fixture.sql")
		type stat struct {
			requests, items int
			used, ignored   *float64
		}
		got := map[string]stat{}
		rows, err := l.conn.Query(context.Background(), `SELECT recall_policy, recall_requests, items_returned,
			used_rate::float8, ignored_rate::float8 FROM public.agent_recall_policy_stats`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var p string
			var s stat
			if err := rows.Scan(&p, &s.requests, &s.items, &s.used, &s.ignored); err != nil {
				t.Fatal(err)
			}
			got[p] = s
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		// ranked_ledger: two traces (one without items), three items, feedback on two: 1 used, 1 ignored.
		rl := got["ranked_ledger"]
		if rl.requests != 2 || rl.items != 3 || rl.used == nil || *rl.used != 0.5 || rl.ignored == nil || *rl.ignored != 0.5 {
			t.Errorf("ranked_ledger: %+v, want 2 requests, 3 items, used 0.5, ignored 0.5", rl)
		}
		// vector (no recall_policy key): feedback on none, so both rates are NULL.
		vec := got["vector"]
		if vec.requests != 1 || vec.items != 2 || vec.used != nil || vec.ignored != nil {
			t.Errorf("vector: %+v, want 1 request, 2 items, NULL rates", vec)
		}
		if len(got) != 2 {
			t.Errorf("policies %v, want ranked_ledger and vector", got)
		}
	})
}

// The port's own policy: the recall gate and the role model.
func TestPortRecallGate(t *testing.T) {
	l := install(t, port)
	ok := l.add(decision{content: "ok"})
	noEvidence := l.add(decision{content: "no evidence"})
	rejected := l.add(decision{content: "rejected"})
	l.exec(`UPDATE public.agent_memories SET can_use_as_evidence = false WHERE id = $1::uuid`, noEvidence)
	l.exec(`UPDATE public.agent_memories SET review_status = 'rejected' WHERE id = $1::uuid`, rejected)
	got := byID(l.match("p_workspace_id => 'ws', p_include_superseded => true"))
	if got[ok] == nil || got[noEvidence] != nil || got[rejected] != nil {
		t.Errorf("gate: returned %v, want only the evidence-usable row", len(got))
	}
}

func TestPrivileges(t *testing.T) {
	const fn = "public.match_decision_ledger(text, text, vector, text, text, integer, integer, float8, float8, float8, float8, float8, float8, boolean)"
	forEach(t, func(t *testing.T, l *ledgerDB) {
		caller := "service_role"
		for role, want := range map[string]bool{"anon": false, "authenticated": false, caller: true} {
			var can bool
			l.queryRow(`SELECT has_function_privilege($1, $2, 'EXECUTE')`, []any{role, fn}, &can)
			if can != want {
				t.Errorf("%s EXECUTE on match_decision_ledger: %v, want %v", role, can, want)
			}
			l.queryRow(`SELECT has_table_privilege($1, 'public.agent_decision_ledger', 'INSERT')`, []any{role}, &can)
			if can != want {
				t.Errorf("%s INSERT on the ledger: %v, want %v", role, can, want)
			}
		}
		var rls bool
		l.queryRow(`SELECT relrowsecurity FROM pg_class WHERE oid = 'public.agent_decision_ledger'::regclass`, nil, &rls)
		if rls == l.v.port {
			t.Errorf("RLS on the ledger: %v (port uses a role model instead of RLS)", rls)
		}
		// The Supabase write path: service_role writes a decision, enrollment follows.
		l.exec(`SET ROLE service_role`)
		l.add(decision{content: "written by service_role"})
		l.exec(`RESET ROLE`)
		var n int
		l.queryRow(`SELECT count(*) FROM public.agent_decision_ledger`, nil, &n)
		if n != 1 {
			t.Errorf("service_role write enrolled %d rows, want 1", n)
		}
	})
}
