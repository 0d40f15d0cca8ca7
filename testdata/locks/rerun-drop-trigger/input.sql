-- Re-creating a trigger for idempotency: on a fresh install DROP TRIGGER IF EXISTS finds nothing
-- and locks nothing, but when the file is applied again it takes ACCESS EXCLUSIVE on
-- agent_memories.
CREATE OR REPLACE FUNCTION public.memory_rerun_case()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  RETURN NULL;
END;
$fn$;

SET lock_timeout = '3s';
DROP TRIGGER IF EXISTS trg_memory_rerun_case ON public.agent_memories;
CREATE TRIGGER trg_memory_rerun_case
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.memory_rerun_case();
