CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
NOTIFY pgrst, 'reload schema';
