CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, e vector(1536), h halfvec(1024));
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
CREATE OR REPLACE FUNCTION public.ledger_match(p_e vector(1536)) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE SET search_path = public, extensions AS $$
DECLARE
  v_probe vector(1536);
BEGIN
  RETURN QUERY SELECT id FROM public.ledger ORDER BY e <=> p_e::vector(1536);
END $$;
REVOKE EXECUTE ON FUNCTION public.ledger_match(vector) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.ledger_match(vector) TO service_role;
NOTIFY pgrst, 'reload schema';
