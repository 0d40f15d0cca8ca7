-- A trigger on agent_memories whose lock a reviewer accepted in the file itself: the
-- suppression before the statement accepts what it blocks, not the missing lock_timeout.
CREATE OR REPLACE FUNCTION public.memory_suppressed_case()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  RETURN NULL;
END;
$fn$;

-- ledgercheck:ignore lock-blocks-writes the trigger is created in the nightly window, when no agent writes
CREATE TRIGGER trg_memory_suppressed_case
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.memory_suppressed_case();
