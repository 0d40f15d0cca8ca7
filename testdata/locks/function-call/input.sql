-- A maintenance function the file defines and calls: the index it builds takes SHARE on
-- agent_memory_source_refs when the SELECT calls it, so the lock is the SELECT's.
CREATE OR REPLACE FUNCTION public.ensure_source_ref_index()
RETURNS void
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  CREATE INDEX IF NOT EXISTS idx_agent_memory_source_refs_case ON public.agent_memory_source_refs (created_at);
END;
$fn$;

SELECT public.ensure_source_ref_index();
