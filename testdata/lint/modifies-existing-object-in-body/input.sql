CREATE OR REPLACE FUNCTION public.ledger_setup() RETURNS void
LANGUAGE plpgsql SET search_path = public AS $fn$
BEGIN
  -- é: a non-ASCII comment before the statement
  ALTER TABLE thoughts ADD COLUMN IF NOT EXISTS ledger_step int;
END
$fn$;
REVOKE EXECUTE ON FUNCTION public.ledger_setup() FROM PUBLIC;
SELECT public.ledger_setup();
NOTIFY pgrst, 'reload schema';
