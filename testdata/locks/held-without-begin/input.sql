-- lock-held-across-slow-statements without BEGIN: psql commits each statement, but supabase
-- db push and the SQL editor run the file as one transaction, where the SHARE lock of the index
-- build is held across the backfill.
SET lock_timeout = '3s';
CREATE INDEX IF NOT EXISTS idx_agent_memory_review_actions_case
  ON public.agent_memory_review_actions (created_at);
DO $backfill$
BEGIN
  PERFORM pg_sleep(0.15);
END
$backfill$;
