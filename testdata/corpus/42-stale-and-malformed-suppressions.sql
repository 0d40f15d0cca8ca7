-- Capture dedup log: records every time upsert_thought merged a duplicate, so the user can see
-- what was folded together. Trimmed nightly.

BEGIN;

CREATE TABLE IF NOT EXISTS public.capture_dedup_log (
  id          bigserial PRIMARY KEY,
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  fingerprint text NOT NULL,
  merged_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.capture_dedup_log ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS capture_dedup_log_service_role_all ON public.capture_dedup_log;
CREATE POLICY capture_dedup_log_service_role_all ON public.capture_dedup_log
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, DELETE ON public.capture_dedup_log TO service_role;
GRANT USAGE, SELECT ON SEQUENCE public.capture_dedup_log_id_seq TO service_role;

-- Keep 30 days.
-- ledgercheck:ignore destructive-statement trimming our own log table
DELETE FROM public.capture_dedup_log
 WHERE merged_at < now() - interval '30 days';

-- ledgercheck:ignore rls-missing
CREATE INDEX IF NOT EXISTS capture_dedup_log_thought_idx ON public.capture_dedup_log (thought_id, merged_at DESC);

NOTIFY pgrst, 'reload schema';

COMMIT;
