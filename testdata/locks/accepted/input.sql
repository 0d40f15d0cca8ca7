-- A reviewed trigger on agent_memories: locks.accept takes its lock as reviewed.
CREATE OR REPLACE FUNCTION public.memory_accepted_case()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  RETURN NULL;
END;
$fn$;

CREATE TRIGGER trg_memory_accepted_case
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.memory_accepted_case();
