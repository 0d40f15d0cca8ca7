CREATE OR REPLACE FUNCTION public.ledger_admin() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN RETURN; END $$;
REVOKE EXECUTE ON FUNCTION public.ledger_admin() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.ledger_admin() TO service_role;
NOTIFY pgrst, 'reload schema';
