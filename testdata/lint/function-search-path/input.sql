CREATE OR REPLACE FUNCTION public.ledger_now() RETURNS timestamptz
LANGUAGE sql STABLE AS $$ SELECT now() $$;
REVOKE EXECUTE ON FUNCTION public.ledger_now() FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.ledger_now() TO service_role;
NOTIFY pgrst, 'reload schema';
