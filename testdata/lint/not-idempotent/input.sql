CREATE TABLE public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
ALTER TABLE public.ledger ADD COLUMN rationale text;
CREATE INDEX ON public.ledger (step);
CREATE INDEX ledger_step_idx ON public.ledger (step);
NOTIFY pgrst, 'reload schema';
