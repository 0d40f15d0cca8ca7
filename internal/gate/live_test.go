package gate

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// liveServer starts a plain server standing in for a production one, stopped when t ends.
func liveServer(t *testing.T) *scratchtest.DSNServer {
	t.Helper()
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// The six drifts a deployment can pick up after review (the tools the issue measured catch at
// most three of them), planted in a database that holds the artifact, are each reported when
// that database is compared with the artifact's file; before them, the database passes. It is
// read by a role that has nothing but CONNECT.
func TestLiveDatabaseDrifts(t *testing.T) {
	const artifact = "../../migrations/decision_ledger.sql"
	live := liveServer(t)
	live.Deploy(t, "prod", 1536, artifact)
	admin := live.Conn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "CREATE ROLE reader LOGIN"); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(artifact)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{
		Artifact: Variant{Name: "artifact", File: artifact, Src: src, Dim: 1536},
		Ports:    []Port{{Variant: Variant{Name: "prod", File: artifact, Src: src, Dim: 1536, DSN: live.DSNOf("reader", "prod")}}},
		Steps:    Steps{Parity: true},
		Server:   scratchtest.Server(t),
	}
	res, err := Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Failed() || len(res.Parity[0].Differences) != 0 {
		t.Fatalf("the deployment as installed: %v", res.Report.Findings())
	}
	par := res.Report.Phases[0]
	if !slices.ContainsFunc(par.Notes, func(n string) bool {
		return strings.HasPrefix(n, "the port prod was read from the database reader@") && strings.Contains(n, "read-only")
	}) || !slices.ContainsFunc(par.Notes, func(n string) bool { return strings.HasPrefix(n, "the artifact ran on PostgreSQL ") }) {
		t.Errorf("parity notes = %q: want where the port was read from, and the server versions", par.Notes)
	}

	conn := live.ConnTo(t, "prod")
	var def string
	if err := conn.QueryRow(ctx, `SELECT pg_get_functiondef('public.touch_decision_recall(uuid[], boolean)'::regprocedure)`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`GRANT SELECT ON public.agent_decision_ledger TO anon`,
		strings.Replace(def, "recall_count + 1", "recall_count + 2", 1),
		`ALTER POLICY agent_decision_ledger_service_role_all ON public.agent_decision_ledger TO service_role, authenticated`,
		`ALTER TABLE public.agent_decision_ledger ALTER COLUMN importance SET DEFAULT 0.60`,
		`DROP INDEX public.idx_agent_decision_ledger_scope`,
		`CREATE INDEX idx_agent_decision_edges_relation ON public.agent_decision_edges (relation)`,
		`ALTER VIEW public.agent_recall_policy_stats RESET (security_invoker)`,
		// Out of scope: objects no file created or changed.
		`CREATE TABLE public.other_sidecar (id int)`,
		`GRANT SELECT ON public.thoughts TO anon`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	res, err = Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Report.Findings() {
		if f.Severity == finding.SevError {
			got = append(got, f.Object+" "+strings.Fields(f.Message)[0])
		}
	}
	slices.Sort(got)
	want := []string{
		"function public.touch_decision_recall(uuid[], boolean) body",
		"index public.idx_agent_decision_edges_relation index",
		"index public.idx_agent_decision_ledger_scope index",
		"policy agent_decision_ledger_service_role_all on public.agent_decision_ledger roles",
		"column public.agent_decision_ledger.importance default",
		"table public.agent_decision_ledger acl:anon",
		"view public.agent_recall_policy_stats options",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("drifts reported:\n got %q\nwant %q", got, want)
	}
}
