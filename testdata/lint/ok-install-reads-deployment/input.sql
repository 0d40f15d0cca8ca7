-- Guards, seeds and dates a migration reads while it is deployed, none of them where it is
-- deployed; and a function that reads the server only when it is called later.
CREATE TABLE IF NOT EXISTS public.agent_tags (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), tag text NOT NULL, year text);
ALTER TABLE public.agent_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_tags_service ON public.agent_tags;
CREATE POLICY agent_tags_service ON public.agent_tags FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.agent_tags FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_tags TO service_role;

DO $$
BEGIN
  IF pg_catalog.to_regclass('public.agent_tags_archive') IS NULL THEN
    CREATE TABLE public.agent_tags_archive (LIKE public.agent_tags);
    ALTER TABLE public.agent_tags_archive ENABLE ROW LEVEL SECURITY;
    CREATE POLICY agent_tags_archive_service ON public.agent_tags_archive FOR ALL TO service_role USING (true) WITH CHECK (true);
    REVOKE ALL ON public.agent_tags_archive FROM PUBLIC, anon, authenticated;
    GRANT ALL ON public.agent_tags_archive TO service_role;
  END IF;
  IF pg_catalog.current_setting('server_version_num')::int < 150000 THEN
    RAISE EXCEPTION 'this migration needs PostgreSQL 15 or later';
  END IF;
  IF current_user <> 'postgres' THEN
    RAISE EXCEPTION 'run this migration as postgres';
  END IF;
END $$;

INSERT INTO public.agent_tags (id, tag, year)
VALUES (gen_random_uuid(), 'seed', pg_catalog.to_char(now(), 'YYYY'))
ON CONFLICT (id) DO NOTHING;

CREATE OR REPLACE FUNCTION public.agent_tags_server() RETURNS text
  LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT pg_catalog.version() $$;
REVOKE ALL ON FUNCTION public.agent_tags_server() FROM PUBLIC, anon, authenticated;

-- A view whose query asks which server it runs on, for the service's dashboard: the query runs
-- when the view is read, not while the file is deployed, and the Data API's public roles may not
-- read it.
CREATE OR REPLACE VIEW public.agent_tags_about WITH (security_invoker = true) AS
  SELECT pg_catalog.version() AS server, pg_catalog.count(*) AS tags FROM public.agent_tags;
REVOKE ALL ON public.agent_tags_about FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.agent_tags_about TO service_role;

NOTIFY pgrst, 'reload schema';
