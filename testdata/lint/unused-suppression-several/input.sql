CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
-- ledgercheck:ignore destructive-statement, not-idempotent both named, only the first applies
TRUNCATE public.ledger;
-- ledgercheck:ignore-file vector-dimension no vector in this file, so nothing to suppress
NOTIFY pgrst, 'reload schema';
