-- A sidecar of moderation notes on Open Brain thoughts. Each table's read policy trusts a value
-- the client sends, spelled another way: the JWT's user_metadata (every user edits his own), a
-- request header or a cookie (any client sends them). What the observation tries must not
-- depend on the spelling: each of these is a user (or anon) promoting himself.
CREATE SCHEMA IF NOT EXISTS moderation_private;
REVOKE ALL ON SCHEMA moderation_private FROM PUBLIC;
GRANT USAGE ON SCHEMA moderation_private TO authenticated, anon;

-- 1. The path as a function's arguments.
CREATE TABLE public.mod_flags (id bigint PRIMARY KEY, thought_id uuid, reason text);
ALTER TABLE public.mod_flags ENABLE ROW LEVEL SECURITY;
CREATE POLICY flags_moderators ON public.mod_flags FOR SELECT TO authenticated -- want client-value-widens-access
  USING (pg_catalog.jsonb_extract_path_text(auth.jwt(), 'user_metadata', 'role') = 'moderator');
GRANT SELECT ON public.mod_flags TO authenticated;

-- 2. The path as a text array.
CREATE TABLE public.mod_appeals (id bigint PRIMARY KEY, thought_id uuid, body text);
ALTER TABLE public.mod_appeals ENABLE ROW LEVEL SECURITY;
CREATE POLICY appeals_staff ON public.mod_appeals FOR SELECT TO authenticated -- want client-value-widens-access
  USING (auth.jwt() #>> '{user_metadata,staff}' = 'true');
GRANT SELECT ON public.mod_appeals TO authenticated;

-- 3. jsonb subscripts, compared with a JSON string.
CREATE TABLE public.mod_bans (id bigint PRIMARY KEY, user_id uuid, until timestamptz);
ALTER TABLE public.mod_bans ENABLE ROW LEVEL SECURITY;
CREATE POLICY bans_admins ON public.mod_bans FOR SELECT TO authenticated -- want client-value-widens-access
  USING ((auth.jwt() -> 'user_metadata')['tier'] = '"admin"');
GRANT SELECT ON public.mod_bans TO authenticated;

-- 4. Containment of a JSON document.
CREATE TABLE public.mod_queue (id bigint PRIMARY KEY, thought_id uuid, state text);
ALTER TABLE public.mod_queue ENABLE ROW LEVEL SECURITY;
CREATE POLICY queue_reviewers ON public.mod_queue FOR SELECT TO authenticated -- want client-value-widens-access
  USING (auth.jwt() @> '{"user_metadata": {"reviewer": "yes"}}');
GRANT SELECT ON public.mod_queue TO authenticated;

-- 5. A JSON path.
CREATE TABLE public.mod_notes (id bigint PRIMARY KEY, thought_id uuid, note text);
ALTER TABLE public.mod_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_editors ON public.mod_notes FOR SELECT TO authenticated -- want client-value-widens-access
  USING (pg_catalog.jsonb_path_exists(auth.jwt(), '$.user_metadata ? (@.desk == "editors")'));
GRANT SELECT ON public.mod_notes TO authenticated;

-- 6. A helper whose key is its argument.
CREATE OR REPLACE FUNCTION moderation_private.claim(k text) RETURNS text
LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT auth.jwt() -> 'user_metadata' ->> k $$;
CREATE TABLE public.mod_reports (id bigint PRIMARY KEY, thought_id uuid, summary text);
ALTER TABLE public.mod_reports ENABLE ROW LEVEL SECURITY;
CREATE POLICY reports_leads ON public.mod_reports FOR SELECT TO authenticated -- want client-value-widens-access
  USING (moderation_private.claim('lead') = 'on');
GRANT SELECT ON public.mod_reports TO authenticated;

-- 7. A header read as a function's argument.
CREATE TABLE public.mod_tenant_rules (id bigint PRIMARY KEY, tenant text NOT NULL, rule text);
ALTER TABLE public.mod_tenant_rules ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rules_read ON public.mod_tenant_rules FOR SELECT TO anon, authenticated -- want client-value-widens-access
  USING (tenant = pg_catalog.json_extract_path_text(current_setting('request.headers', true)::json, 'x-workspace'));
GRANT SELECT ON public.mod_tenant_rules TO anon, authenticated;

-- 8. A path computed from pieces.
CREATE TABLE public.mod_shifts (id bigint PRIMARY KEY, starts timestamptz);
ALTER TABLE public.mod_shifts ENABLE ROW LEVEL SECURITY;
CREATE POLICY shifts_night ON public.mod_shifts FOR SELECT TO authenticated -- want client-value-widens-access
  USING (pg_catalog.jsonb_extract_path_text(auth.jwt(), 'user_' || 'metadata', 'sh' || 'ift') = 'night');
GRANT SELECT ON public.mod_shifts TO authenticated;

-- 9. The helper again, its key computed from pieces.
CREATE TABLE public.mod_triage (id bigint PRIMARY KEY, thought_id uuid);
ALTER TABLE public.mod_triage ENABLE ROW LEVEL SECURITY;
CREATE POLICY triage_desk ON public.mod_triage FOR SELECT TO authenticated -- want client-value-widens-access
  USING (moderation_private.claim('des' || 'k') = 'triage');
GRANT SELECT ON public.mod_triage TO authenticated;

-- 10. A cookie, which any client sends.
CREATE TABLE public.mod_previews (id bigint PRIMARY KEY, body text);
ALTER TABLE public.mod_previews ENABLE ROW LEVEL SECURITY;
CREATE POLICY previews_beta ON public.mod_previews FOR SELECT TO anon, authenticated -- want client-value-widens-access
  USING (current_setting('request.cookies', true)::json ->> 'beta' = 'on');
GRANT SELECT ON public.mod_previews TO anon, authenticated;

-- 11. The value to set is in another table: the workspaces a user claims to belong to.
CREATE TABLE public.mod_workspaces (slug text PRIMARY KEY, title text);
ALTER TABLE public.mod_workspaces ENABLE ROW LEVEL SECURITY;
-- The directory is open to signed-in users; the notes' policy compares its slug with what the
-- user claims, which makes the slug the user's in the observation's eyes.
CREATE POLICY workspaces_directory ON public.mod_workspaces FOR SELECT TO authenticated USING (slug IS NOT NULL); -- want user-reads-every-row
GRANT SELECT ON public.mod_workspaces TO authenticated;
CREATE TABLE public.mod_workspace_notes (id bigint PRIMARY KEY, body text);
ALTER TABLE public.mod_workspace_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY workspace_notes_members ON public.mod_workspace_notes FOR SELECT TO authenticated -- want client-value-widens-access
  USING (EXISTS (SELECT 1 FROM public.mod_workspaces w WHERE w.slug = auth.jwt() -> 'user_metadata' ->> 'workspace'));
GRANT SELECT ON public.mod_workspace_notes TO authenticated;

-- 12. The same lookup through a view: the observation's reader, which samples the rows values
-- come from, never reads a view of the file (its query would run with the reader's rights), so
-- the trap raises if it does; the value is not tried, and the case is not observed.
CREATE OR REPLACE FUNCTION moderation_private.trap() RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = '' AS $$
BEGIN
  IF session_user::text LIKE 'ledgercheck%reader' THEN
    RAISE EXCEPTION 'a privileged session ran the file''s view';
  END IF;
  RETURN true;
END $$;
CREATE VIEW public.mod_desk_names WITH (security_invoker = true) AS
  SELECT w.slug AS desk FROM public.mod_workspaces w WHERE moderation_private.trap();
GRANT SELECT ON public.mod_desk_names TO authenticated;
CREATE TABLE public.mod_desk_notes (id bigint PRIMARY KEY, body text);
ALTER TABLE public.mod_desk_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY desk_notes_members ON public.mod_desk_notes FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.mod_desk_names d WHERE d.desk = auth.jwt() -> 'user_metadata' ->> 'desk_name'));
GRANT SELECT ON public.mod_desk_notes TO authenticated;

-- 13. The same lookup in a PL/pgSQL helper the policy calls: the slug the user claims is
-- compared in the helper's body, with a table only the helper reads (PostgreSQL records no
-- dependency of a body on it).
CREATE TABLE public.mod_teams (code text PRIMARY KEY, title text);
ALTER TABLE public.mod_teams ENABLE ROW LEVEL SECURITY;
CREATE FUNCTION public.mod_claimed_team() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  v text;
BEGIN
  SELECT t.code INTO v FROM public.mod_teams t WHERE t.code = auth.jwt() -> 'user_metadata' ->> 'team';
  RETURN v;
END $$;
CREATE TABLE public.mod_team_notes (id bigint PRIMARY KEY, body text);
ALTER TABLE public.mod_team_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_notes_claimed ON public.mod_team_notes FOR SELECT TO authenticated -- want client-value-widens-access
  USING ((SELECT public.mod_claimed_team()) IS NOT NULL);
GRANT SELECT ON public.mod_team_notes TO authenticated;

-- Controls: app_metadata, which only the server sets, and the user's own rows.
CREATE TABLE public.mod_audit (id bigint PRIMARY KEY, entry text);
ALTER TABLE public.mod_audit ENABLE ROW LEVEL SECURITY;
CREATE POLICY audit_admins ON public.mod_audit FOR SELECT TO authenticated
  USING (auth.jwt() #>> '{app_metadata,role}' = 'admin');
GRANT SELECT ON public.mod_audit TO authenticated;

CREATE TABLE public.mod_drafts (id bigint PRIMARY KEY, owner_id uuid NOT NULL REFERENCES auth.users (id), body text);
ALTER TABLE public.mod_drafts ENABLE ROW LEVEL SECURITY;
CREATE POLICY drafts_own ON public.mod_drafts FOR SELECT TO authenticated USING ((SELECT auth.uid()) = owner_id);
GRANT SELECT ON public.mod_drafts TO authenticated;

INSERT INTO public.mod_flags VALUES (1, NULL, 'spam') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_appeals VALUES (1, NULL, 'not spam') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_bans VALUES (1, NULL, NULL) ON CONFLICT DO NOTHING;
INSERT INTO public.mod_queue VALUES (1, NULL, 'open') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_notes VALUES (1, NULL, 'check sources') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_reports VALUES (1, NULL, 'weekly') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_tenant_rules VALUES (1, 'acme', 'no links') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_shifts VALUES (1, NULL) ON CONFLICT DO NOTHING;
INSERT INTO public.mod_triage VALUES (1, NULL) ON CONFLICT DO NOTHING;
INSERT INTO public.mod_previews VALUES (1, 'new layout') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_workspaces VALUES ('northwind', 'Northwind') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_workspace_notes VALUES (1, 'quarterly review') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_desk_notes VALUES (1, 'rota') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_audit VALUES (1, 'created') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_teams VALUES ('falcon', 'Falcon') ON CONFLICT DO NOTHING;
INSERT INTO public.mod_team_notes VALUES (1, 'roadmap') ON CONFLICT DO NOTHING;

NOTIFY pgrst, 'reload schema';
