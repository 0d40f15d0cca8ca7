package cli

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/locks"
)

// batchedBackfill is a sidecar in a common style: a table keyed by public.thoughts, filled by a
// procedure that commits after each batch so that no transaction holds thoughts' rows for long.
// Under psql it runs; as production runs a file (one transaction) the CALL fails, and its COMMITs
// release what it locked before the lock trace could read it.
const batchedBackfill = `-- Sidecar: thought topics, read from each thought's metadata and kept beside it.
CREATE TABLE IF NOT EXISTS public.thought_topics (
  thought_id uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  topics     text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.thought_topics ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS thought_topics_service ON public.thought_topics;
CREATE POLICY thought_topics_service ON public.thought_topics FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_topics TO service_role;

-- Backfill in batches of 500, committing after each.
CREATE OR REPLACE PROCEDURE public.backfill_thought_topics(batch integer DEFAULT 500)
LANGUAGE plpgsql
AS $$
DECLARE
  n integer;
BEGIN
  LOOP
    INSERT INTO public.thought_topics (thought_id, topics)
    SELECT t.id, ARRAY(SELECT pg_catalog.jsonb_array_elements_text(COALESCE(t.metadata -> 'topics', '[]'::jsonb)))
      FROM public.thoughts t
     WHERE NOT EXISTS (SELECT 1 FROM public.thought_topics x WHERE x.thought_id = t.id)
     LIMIT batch;
    GET DIAGNOSTICS n = ROW_COUNT;
    COMMIT;
    EXIT WHEN n < batch;
  END LOOP;
END
$$;
REVOKE ALL ON PROCEDURE public.backfill_thought_topics(integer) FROM PUBLIC, anon, authenticated;
CALL public.backfill_thought_topics();

NOTIFY pgrst, 'reload schema';
`

// A sidecar whose CALL commits inside itself fails check at the CALL, in the locks phase,
// for the install and the rerun; nothing else in it is an error (an install that failed would
// be one).
func TestCommitInsideAStatementFailsCheck(t *testing.T) {
	initSidecar(t, "topics.sql")
	write(t, "topics.sql", batchedBackfill)
	rep := sharedCheck(t)
	var errs, inside []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Severity == "error" {
				errs = append(errs, fmt.Sprintf("%s %s", f.Pos, f.Rule))
			}
			if f.Rule == locks.RuleCommitInsideStatement {
				inside = append(inside, fmt.Sprintf("%s %s", ph.Name, f.Message))
			}
		}
	}
	if !rep.Failed() || !slices.Equal(errs, []string{"topics.sql:32:1 " + locks.RuleCommitInsideStatement}) {
		t.Fatalf("errors %q (failed %t), want commit-inside-statement at the CALL alone", errs, rep.Failed())
	}
	want := "locks artifact the statement runs COMMIT or ROLLBACK inside itself (a procedure or DO block; install and 1 other run): it fails where the file runs as one transaction (supabase db push), and hides its locks from the lock trace; run each batch as a statement of its own"
	if len(inside) != 1 || inside[0] != want {
		t.Errorf("findings %q, want [%s]", inside, want)
	}
}
