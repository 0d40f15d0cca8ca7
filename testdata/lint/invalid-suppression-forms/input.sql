-- ledgercheck:ignore-file table-rls-disabled every table here is internal
-- ledgercheck:ignore-next destructive-statement a form that does not exist
-- ledgercheck:ignorefile not-idempotent a misspelt form
-- ledgercheck:ignore-file not-idempotent
-- ledgercheck:ignoer not-idempotent a typo that must not pass for prose
-- ledgercheck: ignore not-idempotent a space after the colon
-- ledgercheck: checked by the pre-merge gate (prose, not a suppression)
CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
-- ledgercheck:ignore destructive-statment the reset is reviewed
DELETE FROM public.ledger WHERE step < 0;
-- ledgercheck:ignore destructive-statement,, two commas
DELETE FROM public.ledger WHERE step > 100;
-- ledgercheck:ignore-file invalid-suppression silence the errors above
NOTIFY pgrst, 'reload schema';
