-- Saved searches, per signed-in user: the review app lets each user save recall queries
-- (text + filters) and re-run them. Rows belong to auth users; each user sees only their own.
--
-- Requires: core capture path, Supabase Auth (auth.users).

BEGIN;

CREATE TABLE IF NOT EXISTS public.saved_searches (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  name        text NOT NULL,
  query_text  text NOT NULL,
  filter      jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_run_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, name)
);

CREATE INDEX IF NOT EXISTS saved_searches_user_idx ON public.saved_searches (user_id, created_at DESC);

ALTER TABLE public.saved_searches ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS saved_searches_service_role_all ON public.saved_searches;
CREATE POLICY saved_searches_service_role_all ON public.saved_searches
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS saved_searches_owner ON public.saved_searches;
CREATE POLICY saved_searches_owner ON public.saved_searches
  FOR ALL TO authenticated
  USING ((SELECT auth.uid()) = user_id)
  WITH CHECK ((SELECT auth.uid()) = user_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.saved_searches TO service_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.saved_searches TO authenticated;

NOTIFY pgrst, 'reload schema';

COMMIT;
