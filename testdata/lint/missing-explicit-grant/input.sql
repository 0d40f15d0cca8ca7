CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.ledger_count() RETURNS bigint
LANGUAGE sql STABLE SET search_path = public AS $$ SELECT count(*) FROM public.ledger $$;
CREATE OR REPLACE VIEW public.ledger_view AS SELECT id FROM public.ledger;
NOTIFY pgrst, 'reload schema';
