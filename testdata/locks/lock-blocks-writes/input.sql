-- An audit sidecar: every insert into agent_memories is copied to a log of its own. The trigger
-- takes SHARE ROW EXCLUSIVE on agent_memories; the lock_timeout bounds the wait for it.
BEGIN;
SET LOCAL lock_timeout = '5s';

CREATE TABLE IF NOT EXISTS public.memory_insert_log (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  memory_id  uuid NOT NULL,
  logged_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.memory_insert_log ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT ON public.memory_insert_log TO service_role;

CREATE OR REPLACE FUNCTION public.memory_insert_log_write()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  INSERT INTO public.memory_insert_log (memory_id) VALUES (NEW.id);
  RETURN NULL;
END;
$fn$;

CREATE TRIGGER trg_memory_insert_log
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.memory_insert_log_write();
COMMIT;
