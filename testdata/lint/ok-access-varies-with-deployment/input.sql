-- Conditions on the row and the requester, the clock compared with a row, and a policy for
-- service_role alone: nothing here asks where it runs.
CREATE TABLE IF NOT EXISTS public.agent_posts (
  id bigint PRIMARY KEY,
  owner uuid,
  team_id bigint,
  is_public boolean NOT NULL DEFAULT false,
  published_at timestamptz
);
ALTER TABLE public.agent_posts ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_posts_service ON public.agent_posts;
CREATE POLICY agent_posts_service ON public.agent_posts FOR ALL TO service_role
  USING (pg_catalog.current_database() OPERATOR(pg_catalog.<>) '') WITH CHECK (true);
DROP POLICY IF EXISTS agent_posts_owner ON public.agent_posts;
CREATE POLICY agent_posts_owner ON public.agent_posts FOR SELECT TO authenticated USING ((select auth.uid()) = owner);
DROP POLICY IF EXISTS agent_posts_published ON public.agent_posts;
CREATE POLICY agent_posts_published ON public.agent_posts FOR SELECT TO anon
  USING (is_public AND published_at <= now() AND published_at > now() - interval '30 days');
DROP POLICY IF EXISTS agent_posts_claims ON public.agent_posts;
CREATE POLICY agent_posts_claims ON public.agent_posts FOR SELECT TO authenticated
  USING ((current_setting('request.jwt.claims', true)::jsonb ->> 'sub')::uuid = owner
    OR (auth.jwt() -> 'app_metadata' ->> 'team')::bigint = team_id);
DROP POLICY IF EXISTS agent_posts_role ON public.agent_posts;
CREATE POLICY agent_posts_role ON public.agent_posts FOR SELECT USING (current_user = 'authenticated' AND lower(pg_catalog.btrim(' x ')) = 'x');

REVOKE ALL ON public.agent_posts FROM PUBLIC, anon, authenticated;
-- ledgercheck:ignore grant-to-api-role the feed reads published posts through the policies above
GRANT SELECT ON public.agent_posts TO anon, authenticated;
GRANT ALL ON public.agent_posts TO service_role;

-- A function the API may call that reads the clock and makes ids, and one that reads the
-- database's name but that only service_role may call.
CREATE OR REPLACE FUNCTION public.agent_posts_stamp() RETURNS text
  LANGUAGE sql VOLATILE SET search_path = '' AS $$ SELECT pg_catalog.gen_random_uuid()::text || pg_catalog.to_char(now(), 'YYYY') $$;
REVOKE ALL ON FUNCTION public.agent_posts_stamp() FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role signed-in users stamp their drafts
GRANT EXECUTE ON FUNCTION public.agent_posts_stamp() TO authenticated;
CREATE OR REPLACE FUNCTION public.agent_posts_where() RETURNS text
  LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT pg_catalog.current_database()::text $$;
REVOKE ALL ON FUNCTION public.agent_posts_where() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.agent_posts_where() TO service_role;

NOTIFY pgrst, 'reload schema';
