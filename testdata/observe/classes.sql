-- Sidecar tables of a "shared notebook" contribution, each written around the catalog's reading of
-- policies and grants in one of the ways an attack run found. The statement that opens each
-- exposure names, at the end of its first line, the rules expected there (a rule that holds under
-- one privilege model only is written RULE:MODEL); every other statement must stay clean.

-- 1. Always-true conditions not spelled true: anon reads every row.
CREATE TABLE public.nb_pages_not_false (id bigint PRIMARY KEY, owner_id uuid REFERENCES auth.users (id), body text);
ALTER TABLE public.nb_pages_not_false ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_not_false FOR SELECT USING (NOT false); -- want anon-reads-rows user-reads-every-row
GRANT SELECT ON public.nb_pages_not_false TO anon, authenticated;

CREATE TABLE public.nb_pages_two (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_two ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_two FOR SELECT USING (2 = 2); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_two TO anon;

CREATE TABLE public.nb_pages_self (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_self ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_self FOR SELECT USING (id = id); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_self TO anon;

CREATE TABLE public.nb_pages_or (id bigint PRIMARY KEY, owner_id uuid, body text);
ALTER TABLE public.nb_pages_or ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_or FOR SELECT USING (true OR owner_id = auth.uid()); -- want anon-reads-rows user-reads-others-rows
GRANT SELECT ON public.nb_pages_or TO anon, authenticated;

CREATE TABLE public.nb_pages_coalesce (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_coalesce ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_coalesce FOR SELECT USING (coalesce(null, true)); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_coalesce TO anon;

CREATE TABLE public.nb_pages_literal (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_literal ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_literal FOR SELECT USING ('a' = 'a'); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_literal TO anon;

CREATE SCHEMA IF NOT EXISTS notebook_private;
CREATE FUNCTION notebook_private.is_visible() RETURNS boolean LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT 1 = 1 $$;
GRANT USAGE ON SCHEMA notebook_private TO anon, authenticated;
CREATE TABLE public.nb_pages_helper (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_helper ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_helper FOR SELECT USING (notebook_private.is_visible()); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_helper TO anon;

CREATE TABLE public.nb_pages_length (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_length ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_length FOR SELECT USING (length('x') > 0); -- want anon-reads-rows
GRANT SELECT ON public.nb_pages_length TO anon;

-- A restrictive policy that narrows nothing beside a permissive true one.
CREATE TABLE public.nb_pages_narrowed (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_pages_narrowed ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_read ON public.nb_pages_narrowed FOR SELECT USING (true); -- want anon-reads-rows
CREATE POLICY pages_narrow ON public.nb_pages_narrowed AS RESTRICTIVE FOR SELECT USING (id IS NOT NULL);
GRANT SELECT ON public.nb_pages_narrowed TO anon;

-- 2. Grants the table-level view misses.
CREATE TABLE public.nb_api_keys (id bigint PRIMARY KEY, secret text, label text);
GRANT SELECT (id, secret) ON public.nb_api_keys TO anon; -- want anon-reads-rows anon-writes-rows:old-defaults

CREATE TABLE public.nb_shares (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_shares ENABLE ROW LEVEL SECURITY;
CREATE POLICY shares_read ON public.nb_shares FOR SELECT TO authenticated USING (auth.uid() IS NOT NULL);
GRANT SELECT ON public.nb_shares TO authenticated WITH GRANT OPTION; -- want api-role-can-grant

-- 3. Reach through another object.
CREATE VIEW notebook_private.directory AS SELECT id, email, phone FROM auth.users;
GRANT SELECT ON notebook_private.directory TO anon;
CREATE VIEW public.nb_people WITH (security_invoker = true) AS SELECT * FROM notebook_private.directory;
GRANT SELECT ON public.nb_people TO anon; -- want anon-reads-rows

CREATE TABLE notebook_private.ledger (id bigint PRIMARY KEY, amount numeric NOT NULL, memo text);
GRANT SELECT ON notebook_private.ledger TO anon;
CREATE FUNCTION public.nb_ledger() RETURNS SETOF notebook_private.ledger LANGUAGE sql STABLE SET search_path = '' -- want anon-reads-rows
  AS $$ SELECT * FROM notebook_private.ledger $$;

SELECT vault.create_secret('sk-notebook-0001', 'notebook_api_key');
CREATE FUNCTION notebook_private.gather(state text, item text) RETURNS text LANGUAGE sql SECURITY DEFINER SET search_path = ''
  AS $$ SELECT coalesce(state, '') || (SELECT string_agg(decrypted_secret, ',') FROM vault.decrypted_secrets) $$;
REVOKE EXECUTE ON FUNCTION notebook_private.gather(text, text) FROM PUBLIC, anon, authenticated;
CREATE AGGREGATE public.nb_gather(text) (SFUNC = notebook_private.gather, STYPE = text); -- want anon-reads-rows

CREATE TABLE public.nb_orders (id bigint PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) DEFAULT auth.uid(), item text NOT NULL);
ALTER TABLE public.nb_orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY orders_own ON public.nb_orders FOR ALL TO authenticated USING (auth.uid() = user_id) WITH CHECK (auth.uid() = user_id);
GRANT SELECT, INSERT ON public.nb_orders TO authenticated;
CREATE TABLE public.nb_feed (id bigserial PRIMARY KEY, item text);
ALTER TABLE public.nb_feed ENABLE ROW LEVEL SECURITY;
CREATE POLICY feed_read ON public.nb_feed FOR SELECT TO authenticated USING (auth.uid() IS NOT NULL);
GRANT SELECT ON public.nb_feed TO authenticated;
CREATE FUNCTION notebook_private.publish_order() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  INSERT INTO public.nb_feed (item) VALUES (NEW.item);
  RETURN NEW;
END $$;
CREATE TRIGGER orders_publish AFTER INSERT ON public.nb_orders FOR EACH ROW EXECUTE FUNCTION notebook_private.publish_order(); -- want request-side-effect

CREATE TABLE public.nb_signups (id bigserial PRIMARY KEY, email text NOT NULL);
ALTER TABLE public.nb_signups ENABLE ROW LEVEL SECURITY;
CREATE POLICY signups_insert ON public.nb_signups FOR INSERT TO anon WITH CHECK (email IS NOT NULL); -- want anon-writes-rows
GRANT INSERT ON public.nb_signups TO anon;
GRANT USAGE ON SEQUENCE public.nb_signups_id_seq TO anon;
CREATE RULE signups_reset AS ON INSERT TO public.nb_signups DO ALSO DELETE FROM public.agent_memories; -- want request-side-effect

-- 4. Conditions on what the client controls.
CREATE TABLE public.nb_reports (id bigint PRIMARY KEY, title text);
ALTER TABLE public.nb_reports ENABLE ROW LEVEL SECURITY;
CREATE POLICY reports_admin ON public.nb_reports FOR SELECT TO authenticated -- want client-value-widens-access
  USING ((auth.jwt() -> 'user_metadata' ->> 'role') = 'admin');
GRANT SELECT ON public.nb_reports TO authenticated;

CREATE TABLE public.nb_tenant_pages (id bigint PRIMARY KEY, tenant text NOT NULL, body text);
ALTER TABLE public.nb_tenant_pages ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_read ON public.nb_tenant_pages FOR SELECT -- want client-value-widens-access
  USING (tenant = current_setting('request.headers', true)::json ->> 'x-tenant');
GRANT SELECT ON public.nb_tenant_pages TO anon, authenticated;

CREATE TABLE public.nb_team_members (team_id uuid NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id), PRIMARY KEY (team_id, user_id));
ALTER TABLE public.nb_team_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_join ON public.nb_team_members FOR INSERT TO authenticated WITH CHECK (user_id = auth.uid()); -- want user-enrols-self
CREATE POLICY members_read ON public.nb_team_members FOR SELECT TO authenticated USING (user_id = auth.uid());
GRANT SELECT, INSERT ON public.nb_team_members TO authenticated;
CREATE TABLE public.nb_documents (id bigint PRIMARY KEY, team_id uuid NOT NULL, title text);
ALTER TABLE public.nb_documents ENABLE ROW LEVEL SECURITY;
CREATE POLICY documents_team ON public.nb_documents FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.nb_team_members m WHERE m.team_id = nb_documents.team_id AND m.user_id = auth.uid()));
GRANT SELECT ON public.nb_documents TO authenticated;

-- The same, looked up in a view of the memberships, which the app joins through.
CREATE TABLE public.nb_board_members (board_id uuid NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id), PRIMARY KEY (board_id, user_id));
ALTER TABLE public.nb_board_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY board_members_join ON public.nb_board_members FOR INSERT TO authenticated WITH CHECK (user_id = auth.uid());
CREATE POLICY board_members_read ON public.nb_board_members FOR SELECT TO authenticated USING (user_id = auth.uid());
GRANT SELECT, INSERT ON public.nb_board_members TO authenticated;
CREATE VIEW public.nb_my_boards WITH (security_invoker = true) AS SELECT b.board_id, b.user_id FROM public.nb_board_members b;
GRANT SELECT, INSERT ON public.nb_my_boards TO authenticated;
CREATE TABLE public.nb_cards (id bigint PRIMARY KEY, board_id uuid NOT NULL, title text);
ALTER TABLE public.nb_cards ENABLE ROW LEVEL SECURITY;
CREATE POLICY cards_board ON public.nb_cards FOR SELECT TO authenticated -- want user-enrols-self
  USING (board_id IN (SELECT v.board_id FROM public.nb_my_boards v WHERE v.user_id = auth.uid()));
GRANT SELECT ON public.nb_cards TO authenticated;

-- The same, asked of a SECURITY DEFINER helper, whose body PostgreSQL records no dependency of.
CREATE TABLE public.nb_wiki_members (wiki_id uuid NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id), PRIMARY KEY (wiki_id, user_id));
ALTER TABLE public.nb_wiki_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY wiki_members_join ON public.nb_wiki_members FOR INSERT TO authenticated WITH CHECK (user_id = auth.uid()); -- want user-enrols-self
CREATE POLICY wiki_members_read ON public.nb_wiki_members FOR SELECT TO authenticated USING (user_id = auth.uid());
GRANT SELECT, INSERT ON public.nb_wiki_members TO authenticated;
CREATE FUNCTION public.nb_is_wiki_member(p_wiki uuid) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT EXISTS (SELECT 1 FROM public.nb_wiki_members m WHERE m.wiki_id = p_wiki AND m.user_id = auth.uid());
$$;
REVOKE EXECUTE ON FUNCTION public.nb_is_wiki_member(uuid) FROM PUBLIC, anon;
CREATE TABLE public.nb_wiki_pages (id bigint PRIMARY KEY, wiki_id uuid NOT NULL, title text);
ALTER TABLE public.nb_wiki_pages ENABLE ROW LEVEL SECURITY;
CREATE POLICY wiki_pages_members ON public.nb_wiki_pages FOR SELECT TO authenticated USING (public.nb_is_wiki_member(wiki_id));
GRANT SELECT ON public.nb_wiki_pages TO authenticated;

-- A user who may update every column of his own profile makes himself an admin: the flag a
-- policy reads. The control grants UPDATE on the display name alone (the old default
-- privileges' table-wide UPDATE revoked first).
CREATE TABLE public.nb_profiles (id uuid PRIMARY KEY REFERENCES auth.users (id), display_name text, is_admin boolean NOT NULL DEFAULT false);
ALTER TABLE public.nb_profiles ENABLE ROW LEVEL SECURITY;
CREATE POLICY profiles_own ON public.nb_profiles FOR SELECT TO authenticated USING (id = auth.uid());
CREATE POLICY profiles_own_update ON public.nb_profiles FOR UPDATE TO authenticated USING (id = auth.uid()) WITH CHECK (id = auth.uid()); -- want user-promotes-self
GRANT SELECT, UPDATE ON public.nb_profiles TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.nb_profiles TO service_role;
CREATE TABLE public.nb_staff_reports (id bigint PRIMARY KEY, author_id uuid NOT NULL REFERENCES auth.users (id), body text);
ALTER TABLE public.nb_staff_reports ENABLE ROW LEVEL SECURITY;
CREATE POLICY staff_reports_read ON public.nb_staff_reports FOR SELECT TO authenticated
  USING (author_id = auth.uid() OR EXISTS (SELECT 1 FROM public.nb_profiles p WHERE p.id = auth.uid() AND p.is_admin));
GRANT SELECT ON public.nb_staff_reports TO authenticated;
-- A member who may update his own membership moves it to another user's team.
CREATE TABLE public.nb_crew_members (crew_id uuid NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id), PRIMARY KEY (crew_id, user_id));
ALTER TABLE public.nb_crew_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY crew_members_read ON public.nb_crew_members FOR SELECT TO authenticated USING (user_id = auth.uid());
CREATE POLICY crew_members_move ON public.nb_crew_members FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid()); -- want user-promotes-self
GRANT SELECT, UPDATE ON public.nb_crew_members TO authenticated;
CREATE TABLE public.nb_crew_logs (id bigint PRIMARY KEY, crew_id uuid NOT NULL, entry text);
ALTER TABLE public.nb_crew_logs ENABLE ROW LEVEL SECURITY;
CREATE POLICY crew_logs_read ON public.nb_crew_logs FOR SELECT TO authenticated
  USING (crew_id IN (SELECT c.crew_id FROM public.nb_crew_members c WHERE c.user_id = auth.uid()));
GRANT SELECT ON public.nb_crew_logs TO authenticated;
-- A SECURITY DEFINER function that returns every profile's name returns rows the user cannot read;
-- one that returns the caller's own flag (the usual policy helper) reads the profiles too, but
-- returns the same once the other users' profiles are gone: it returns nothing of theirs.
CREATE FUNCTION public.nb_profile_names() RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT p.display_name FROM public.nb_profiles p ORDER BY p.display_name;
$$;
REVOKE EXECUTE ON FUNCTION public.nb_profile_names() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.nb_profile_names() TO authenticated; -- want user-reads-others-rows
-- The same list, remembered in a setting for the transaction: it answers the same once the other
-- users' profiles are gone only if the two calls share a transaction.
CREATE FUNCTION public.nb_profile_names_kept() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  v text := pg_catalog.current_setting('nb.names', true);
BEGIN
  IF v IS NULL OR v = '' THEN
    SELECT pg_catalog.string_agg(p.display_name, ',' ORDER BY p.display_name) INTO v FROM public.nb_profiles p;
    PERFORM pg_catalog.set_config('nb.names', coalesce(v, '-'), true);
  END IF;
  RETURN v;
END $$;
REVOKE EXECUTE ON FUNCTION public.nb_profile_names_kept() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.nb_profile_names_kept() TO authenticated; -- want user-reads-others-rows
CREATE FUNCTION public.nb_am_i_admin() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT coalesce((SELECT p.is_admin FROM public.nb_profiles p WHERE p.id = auth.uid()), false);
$$;
REVOKE EXECUTE ON FUNCTION public.nb_am_i_admin() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.nb_am_i_admin() TO authenticated;
CREATE TABLE public.nb_settings (id uuid PRIMARY KEY REFERENCES auth.users (id), display_name text, is_staff boolean NOT NULL DEFAULT false);
ALTER TABLE public.nb_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY settings_own ON public.nb_settings FOR SELECT TO authenticated USING (id = auth.uid());
CREATE POLICY settings_own_update ON public.nb_settings FOR UPDATE TO authenticated USING (id = auth.uid()) WITH CHECK (id = auth.uid());
REVOKE UPDATE ON public.nb_settings FROM authenticated;
GRANT SELECT, UPDATE (display_name) ON public.nb_settings TO authenticated;
CREATE TABLE public.nb_staff_notes (id bigint PRIMARY KEY, author_id uuid NOT NULL REFERENCES auth.users (id), body text);
ALTER TABLE public.nb_staff_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY staff_notes_read ON public.nb_staff_notes FOR SELECT TO authenticated
  USING (author_id = auth.uid() OR EXISTS (SELECT 1 FROM public.nb_settings s WHERE s.id = auth.uid() AND s.is_staff));
GRANT SELECT ON public.nb_staff_notes TO authenticated;

CREATE TABLE public.nb_drafts (id bigint PRIMARY KEY, owner_id uuid NOT NULL REFERENCES auth.users (id), body text);
ALTER TABLE public.nb_drafts ENABLE ROW LEVEL SECURITY;
CREATE POLICY drafts_read ON public.nb_drafts FOR SELECT TO authenticated USING (true); -- want user-reads-every-row
CREATE POLICY drafts_update ON public.nb_drafts FOR UPDATE TO authenticated USING (auth.uid() = owner_id) WITH CHECK (true); -- want user-writes-others-rows
GRANT SELECT, UPDATE ON public.nb_drafts TO authenticated;

-- 5. Side effects of a request.
CREATE TABLE notebook_private.audit (id bigserial PRIMARY KEY, note text);
CREATE TABLE public.nb_inbox (id bigserial PRIMARY KEY, body text NOT NULL);
ALTER TABLE public.nb_inbox ENABLE ROW LEVEL SECURITY;
CREATE POLICY inbox_insert ON public.nb_inbox FOR INSERT TO anon WITH CHECK (true); -- want anon-writes-rows
GRANT INSERT ON public.nb_inbox TO anon;
GRANT USAGE ON SEQUENCE public.nb_inbox_id_seq TO anon;
CREATE FUNCTION notebook_private.log_inbox() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  EXECUTE 'INSERT INTO notebook_private.audit (note) VALUES (''' || NEW.body || ''')';
  RETURN NEW;
END $$;
CREATE TRIGGER inbox_log AFTER INSERT ON public.nb_inbox FOR EACH ROW EXECUTE FUNCTION notebook_private.log_inbox(); -- want crafted-value-runs-sql request-side-effect

CREATE FUNCTION public.nb_fetch_preview(url text) RETURNS bigint LANGUAGE sql SET search_path = '' -- want outbound-request
  AS $$ SELECT net.http_get(url) $$;

-- 6. Requests that step out of their role: one resets it (and lands on a login role that holds
-- nothing), one switches to service_role, as a function called through Supabase's
-- authenticator (a member of service_role) can.
CREATE TABLE public.nb_ops_secrets (id bigint PRIMARY KEY, token text NOT NULL);
ALTER TABLE public.nb_ops_secrets ENABLE ROW LEVEL SECURITY;
CREATE POLICY ops_secrets_service ON public.nb_ops_secrets FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.nb_ops_secrets FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.nb_ops_secrets TO service_role;
CREATE FUNCTION public.nb_ops_secret_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER SET search_path = ''
  AS $$ SELECT count(*) FROM public.nb_ops_secrets $$;
REVOKE ALL ON FUNCTION public.nb_ops_secret_count() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.nb_ops_secret_count() TO service_role;
CREATE FUNCTION public.nb_ops_peek_reset() RETURNS SETOF text LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  RESET ROLE;
  RETURN QUERY SELECT token FROM public.nb_ops_secrets;
  RETURN QUERY SELECT public.nb_ops_secret_count()::text;
END $$;
CREATE FUNCTION public.nb_ops_peek_escalate() RETURNS SETOF text LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  SET LOCAL ROLE service_role;
  RETURN QUERY SELECT token FROM public.nb_ops_secrets;
END $$;
REVOKE ALL ON FUNCTION public.nb_ops_peek_reset(), public.nb_ops_peek_escalate() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.nb_ops_peek_reset() TO anon;
GRANT EXECUTE ON FUNCTION public.nb_ops_peek_escalate() TO anon; -- want anon-reads-rows

-- 7. The realtime publication: a table in it streams its changes to whoever can read it, an
-- unexposed one too.
CREATE TABLE public.nb_live_pages (id bigint PRIMARY KEY, body text);
ALTER TABLE public.nb_live_pages ENABLE ROW LEVEL SECURITY;
CREATE POLICY live_read ON public.nb_live_pages FOR SELECT TO anon USING (id > -1); -- want anon-reads-rows
GRANT SELECT ON public.nb_live_pages TO anon;
CREATE TABLE notebook_private.nb_cursors (id bigint PRIMARY KEY, position text);
GRANT SELECT ON notebook_private.nb_cursors TO anon; -- want anon-reads-rows
ALTER PUBLICATION supabase_realtime ADD TABLE public.nb_live_pages, notebook_private.nb_cursors;

-- Controls: owner-only notes, a service_role-only table.
CREATE TABLE public.nb_notes (id bigint PRIMARY KEY, owner_id uuid NOT NULL REFERENCES auth.users (id), body text);
ALTER TABLE public.nb_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_select ON public.nb_notes FOR SELECT TO authenticated USING (auth.uid() = owner_id);
CREATE POLICY notes_insert ON public.nb_notes FOR INSERT TO authenticated WITH CHECK (auth.uid() = owner_id);
CREATE POLICY notes_update ON public.nb_notes FOR UPDATE TO authenticated USING (auth.uid() = owner_id) WITH CHECK (auth.uid() = owner_id);
CREATE POLICY notes_delete ON public.nb_notes FOR DELETE TO authenticated USING ((SELECT auth.uid()) = owner_id);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.nb_notes TO authenticated;

CREATE TABLE public.nb_jobs (id bigint PRIMARY KEY, payload jsonb);
ALTER TABLE public.nb_jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY jobs_service ON public.nb_jobs FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.nb_jobs FROM PUBLIC, anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.nb_jobs TO service_role;

REVOKE EXECUTE ON FUNCTION notebook_private.is_visible() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notebook_private.is_visible() TO anon, authenticated;
NOTIFY pgrst, 'reload schema';
