-- An artifact index and its backfill in one transaction: the index build's SHARE lock on
-- agent_memory_artifacts is held while the backfill runs (the pause stands in for a backfill
-- that takes its time over production's rows).
BEGIN;
SET LOCAL lock_timeout = '5s';
CREATE INDEX IF NOT EXISTS idx_agent_memory_artifacts_kind_case
  ON public.agent_memory_artifacts (artifact_kind);
DO $backfill$
BEGIN
  PERFORM pg_sleep(0.15);
END
$backfill$;
COMMIT;
