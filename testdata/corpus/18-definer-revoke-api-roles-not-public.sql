-- Recall trace retention helper: anonymises the query text of recall traces older than N days
-- (keeps the counts for agent_recall_policy_stats, drops the words). Called by the backend's
-- nightly job. Definer, because the job's key only reads traces.

BEGIN;

CREATE OR REPLACE FUNCTION public.agent_recall_traces_redact(p_older_than_days integer DEFAULT 90)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $fn$
DECLARE
  v_n integer;
BEGIN
  UPDATE public.agent_memory_recall_traces AS t
     SET query = '[redacted]',
         request_payload = t.request_payload - 'query'
   WHERE t.created_at < now() - make_interval(days => greatest(p_older_than_days, 7))
     AND t.query <> '[redacted]';
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END;
$fn$;

-- Not for the browser: take it away from the two API roles.
REVOKE EXECUTE ON FUNCTION public.agent_recall_traces_redact(integer) FROM anon, authenticated;
GRANT EXECUTE ON FUNCTION public.agent_recall_traces_redact(integer) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
