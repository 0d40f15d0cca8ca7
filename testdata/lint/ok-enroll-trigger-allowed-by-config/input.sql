CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll() RETURNS trigger
LANGUAGE plpgsql SET search_path = public AS $$
BEGIN
  IF NEW.memory_type = 'decision' THEN
    INSERT INTO public.ledger (id, step) VALUES (NEW.id, 0) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS trg_agent_decision_ledger_enroll ON public.agent_memories;
CREATE TRIGGER trg_agent_decision_ledger_enroll AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_enroll();
NOTIFY pgrst, 'reload schema';
