-- A sidecar of shared agent notes whose policies ask where they run, not who asks for which row.
CREATE TABLE IF NOT EXISTS public.agent_notes (
  id bigint PRIMARY KEY,
  owner uuid,
  note text NOT NULL,
  published_at timestamptz
);
ALTER TABLE public.agent_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_notes_service ON public.agent_notes;
CREATE POLICY agent_notes_service ON public.agent_notes FOR ALL TO service_role USING (true) WITH CHECK (true);

-- Every Supabase project's database is named postgres; ledgercheck's scratch one is not.
DROP POLICY IF EXISTS agent_notes_public ON public.agent_notes;
CREATE POLICY agent_notes_public ON public.agent_notes FOR SELECT TO anon, authenticated
  USING (pg_catalog.current_database() OPERATOR(pg_catalog.=) 'postgres');

-- PostgREST logs in as authenticator.
DROP POLICY IF EXISTS agent_notes_session ON public.agent_notes;
CREATE POLICY agent_notes_session ON public.agent_notes FOR SELECT TO anon USING (session_user = 'authenticator');

-- A setting of the deployment's, and the server's port, beside a real condition.
DROP POLICY IF EXISTS agent_notes_setting ON public.agent_notes;
CREATE POLICY agent_notes_setting ON public.agent_notes FOR SELECT
  USING (owner = auth.uid() OR current_setting('app.settings.notes_open', true) = 'on');
DROP POLICY IF EXISTS agent_notes_port ON public.agent_notes;
CREATE POLICY agent_notes_port ON public.agent_notes FOR UPDATE TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid() OR inet_server_port() = 5432);

-- A date after which everyone reads everything.
DROP POLICY IF EXISTS agent_notes_later ON public.agent_notes;
CREATE POLICY agent_notes_later ON public.agent_notes FOR SELECT TO anon USING (now() > '2027-01-01' AND true);

-- The same test, hidden in two helpers, one called with a column.
CREATE OR REPLACE FUNCTION public.agent_notes_live() RETURNS boolean
  LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT pg_catalog.current_database() = 'postgres' $$;
CREATE OR REPLACE FUNCTION public.agent_notes_visible(note_id bigint) RETURNS boolean
  LANGUAGE plpgsql IMMUTABLE SET search_path = '' AS $$
BEGIN
  RETURN note_id = note_id AND public.agent_notes_live();
END $$;
REVOKE ALL ON FUNCTION public.agent_notes_live() FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.agent_notes_visible(bigint) FROM PUBLIC, anon, authenticated;
DROP POLICY IF EXISTS agent_notes_helper ON public.agent_notes;
CREATE POLICY agent_notes_helper ON public.agent_notes FOR SELECT TO anon USING (public.agent_notes_visible(id));

-- A helper that asks who logged in, called with the requester's id.
CREATE OR REPLACE FUNCTION public.agent_notes_reader(uid uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SET search_path = '' AS $$
BEGIN
  IF session_user = 'authenticator' THEN
    RETURN true;
  END IF;
  RETURN uid IS NOT NULL AND false;
END $$;
REVOKE ALL ON FUNCTION public.agent_notes_reader(uuid) FROM PUBLIC, anon, authenticated;
DROP POLICY IF EXISTS agent_notes_login ON public.agent_notes;
CREATE POLICY agent_notes_login ON public.agent_notes FOR SELECT TO authenticated USING (public.agent_notes_reader(auth.uid()));

REVOKE ALL ON public.agent_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;

-- A function anon may call through the Data API, which answers otherwise where the database is
-- a Supabase project's, through a helper.
CREATE OR REPLACE FUNCTION public.agent_notes_count() RETURNS bigint
  LANGUAGE plpgsql STABLE SET search_path = '' AS $$
BEGIN
  IF public.agent_notes_live() THEN
    RETURN (SELECT pg_catalog.count(*) FROM public.agent_notes);
  END IF;
  RETURN 0;
END $$;
REVOKE ALL ON FUNCTION public.agent_notes_count() FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role the public page shows how many notes there are
GRANT EXECUTE ON FUNCTION public.agent_notes_count() TO anon, authenticated;

-- A view anon may read through the Data API, which shows the notes only where the database is a
-- Supabase project's: the view's query runs when a request reads it.
CREATE OR REPLACE VIEW public.agent_notes_feed WITH (security_invoker = true) AS
  SELECT n.id, n.created_at FROM public.agent_notes n
  WHERE public.agent_notes_live()
  ORDER BY n.created_at DESC LIMIT 20;
-- ledgercheck:ignore grant-to-api-role the feed is public by design
GRANT SELECT ON public.agent_notes_feed TO anon;

NOTIFY pgrst, 'reload schema';
