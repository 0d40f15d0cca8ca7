-- Public changelog of the brain's releases, shown on the landing page with the anon key.

-- ledgercheck:ignore table-rls-disabled the changelog holds nothing private; RLS would only add a policy that says true
-- ledgercheck:ignore table-no-service-role-policy no row level security, so no policy to state
CREATE TABLE IF NOT EXISTS public.brain_changelog (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  version     text NOT NULL,
  notes       text NOT NULL,
  released_at timestamptz NOT NULL DEFAULT now()
);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.brain_changelog TO service_role;
-- ledgercheck:ignore grant-to-api-role the landing page reads the changelog with the anon key
GRANT SELECT ON public.brain_changelog TO anon;

NOTIFY pgrst, 'reload schema';
