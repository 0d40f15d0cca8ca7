-- The same audit trigger as lock-blocks-writes, without a lock_timeout: the CREATE TRIGGER waits
-- behind any long reader of agent_memories, and every writer queues behind it.
CREATE OR REPLACE FUNCTION public.memory_touch_log_write()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  RETURN NULL;
END;
$fn$;

CREATE TRIGGER trg_memory_touch_log
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.memory_touch_log_write();
