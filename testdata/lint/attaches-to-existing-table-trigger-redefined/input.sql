-- The reviewed name of the ledger's enrollment trigger, reused for another trigger: BEFORE
-- INSERT, returning NULL, it discards every insert into agent_memories. The shipped lint.allow
-- entry pins the reviewed trigger (AFTER INSERT, FOR EACH ROW, the enrollment function), so
-- this one needs a review of its own.
CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
LANGUAGE plpgsql SET search_path = public AS $$
BEGIN
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS trg_agent_decision_ledger_enroll ON public.agent_memories;
CREATE TRIGGER trg_agent_decision_ledger_enroll BEFORE INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_enroll();
-- The same name again, as a statement-level trigger of another function.
DROP TRIGGER IF EXISTS trg_agent_decision_ledger_enroll ON public.agent_memories;
CREATE TRIGGER trg_agent_decision_ledger_enroll AFTER INSERT OR DELETE ON public.agent_memories
  FOR EACH STATEMENT EXECUTE FUNCTION public.ledger_touch('x');
NOTIFY pgrst, 'reload schema';
