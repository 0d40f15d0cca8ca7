-- ledgercheck:ignore dynamic-sql the drop loop is the point of this case
DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.proname = 'ledger_digest' AND p.pronargs = 1 LOOP
    EXECUTE format('DROP FUNCTION %s', f);
  END LOOP;
END
$$;
-- ledgercheck:ignore not-idempotent the rerun audit decides; this case shows the warning alone
CREATE FUNCTION public.ledger_digest(p_day date) RETURNS text
LANGUAGE sql STABLE SET search_path = public AS $fn$ SELECT 'x' $fn$;
REVOKE EXECUTE ON FUNCTION public.ledger_digest(date) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.ledger_digest(date) TO service_role;
NOTIFY pgrst, 'reload schema';
