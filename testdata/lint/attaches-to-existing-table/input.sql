CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.ledger_touch() RETURNS trigger
LANGUAGE plpgsql SET search_path = public AS $$ BEGIN RETURN NEW; END $$;
DROP TRIGGER IF EXISTS trg_ledger_touch ON public.agent_memories;
CREATE TRIGGER trg_ledger_touch AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.ledger_touch();
DROP POLICY IF EXISTS ledger_peek ON agent_memories;
CREATE POLICY ledger_peek ON agent_memories FOR SELECT TO service_role USING (true);
NOTIFY pgrst, 'reload schema';
