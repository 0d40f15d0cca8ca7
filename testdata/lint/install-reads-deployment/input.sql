-- A sidecar that asks, while it is deployed, where it is deployed.
CREATE TABLE IF NOT EXISTS public.agent_notes (id bigint PRIMARY KEY, note text NOT NULL);
ALTER TABLE public.agent_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_notes_service ON public.agent_notes;
CREATE POLICY agent_notes_service ON public.agent_notes FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.agent_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;

-- Behave otherwise where the database is a Supabase project's.
DO $$
BEGIN
  IF pg_catalog.current_database() = 'postgres' THEN
    RAISE NOTICE 'deployed to a Supabase project';
  END IF;
END $$;

-- A setting the deployment configured for itself.
DO $$
BEGIN
  IF pg_catalog.current_setting('app.environment', true) = 'production' THEN
    RAISE NOTICE 'deployed to production';
  END IF;
END $$;

-- The login, the server and the catalog's name, at top level.
INSERT INTO public.agent_notes
SELECT 1, 'deployed by ' || session_user WHERE pg_catalog.version() LIKE '%Supabase%' OR current_catalog = 'postgres';

-- The same question through a helper of the file.
CREATE OR REPLACE FUNCTION public.agent_notes_port() RETURNS integer
  LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT pg_catalog.inet_server_port() $$;
REVOKE ALL ON FUNCTION public.agent_notes_port() FROM PUBLIC, anon, authenticated;
SELECT public.agent_notes_port();

NOTIFY pgrst, 'reload schema';
