-- ledgercheck:ignore-file destructive-statement this file resets the ledger it owns on every run, reviewed
CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
DELETE FROM public.ledger;
TRUNCATE public.ledger;
-- ledgercheck:ignore not-idempotent, table-rls-disabled, table-no-service-role-policy a scratch table recreated on purpose, never exposed
CREATE TABLE public.scratch_steps (id int);
GRANT SELECT ON public.scratch_steps TO service_role;
-- ledgercheck:ignore table-no-service-role-policy,not-idempotent	service_role bypasses RLS; recreated on purpose
CREATE TABLE public.more_steps (id int);
ALTER TABLE public.more_steps ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON public.more_steps TO service_role;
NOTIFY pgrst, 'reload schema';
