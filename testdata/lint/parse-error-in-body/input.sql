CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.f() RETURNS void
LANGUAGE plpgsql SET search_path = public AS $$
BEGIN
  SELEC 1;
END $$;
REVOKE EXECUTE ON FUNCTION public.f() FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.f() TO service_role;
NOTIFY pgrst, 'reload schema';
