package cli

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// viewTrapMarker is in the error the trap raises in a privileged session.
const viewTrapMarker = "ledgercheck-view-trap"

// viewTraps is a sidecar whose views each run a trap: a function that raises when the session
// that runs it logged in as a superuser or a role that bypasses row level security (ledgercheck's
// admin, warden and reader; never the install role's or the observer's logins, which request as
// the file and the Data API do). The views stand where the gate's sessions reach a relation of
// the file: a membership a policy looks the user up in, a table a policy looks a client value
// up in, a view over a view (the bases the reader counts), and a function the personas call.
const viewTraps = "-- Sidecar: agent notes shared by team, with views for the console.\n" + agentNotesTable + `CREATE SCHEMA IF NOT EXISTS notes_private;
REVOKE ALL ON SCHEMA notes_private FROM PUBLIC;
GRANT USAGE ON SCHEMA notes_private TO anon, authenticated;
CREATE OR REPLACE FUNCTION notes_private.trap() RETURNS boolean
  LANGUAGE plpgsql VOLATILE SET search_path = '' AS $$
BEGIN
  IF EXISTS (SELECT FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) session_user AND (r.rolsuper OR r.rolbypassrls)) THEN
    RAISE EXCEPTION '` + viewTrapMarker + ` ran as %', session_user;
  END IF;
  RETURN true;
END $$;
CREATE TABLE IF NOT EXISTS public.agent_note_members (user_id uuid NOT NULL, team text NOT NULL, PRIMARY KEY (user_id, team));
ALTER TABLE public.agent_note_members ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_note_members_service ON public.agent_note_members;
CREATE POLICY agent_note_members_service ON public.agent_note_members FOR ALL TO service_role USING (true) WITH CHECK (true);
CREATE OR REPLACE VIEW public.agent_note_members_v WITH (security_invoker = true) AS
  SELECT m.user_id, m.team FROM public.agent_note_members m WHERE notes_private.trap();
CREATE OR REPLACE VIEW public.agent_note_teams_v WITH (security_invoker = true) AS
  SELECT v.team FROM public.agent_note_members_v v WHERE notes_private.trap();
DROP POLICY IF EXISTS agent_notes_members ON public.agent_notes;
CREATE POLICY agent_notes_members ON public.agent_notes FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.agent_note_members_v v WHERE v.user_id OPERATOR(pg_catalog.=) auth.uid()));
DROP POLICY IF EXISTS agent_notes_claimed ON public.agent_notes;
CREATE POLICY agent_notes_claimed ON public.agent_notes FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.agent_note_teams_v t WHERE t.team OPERATOR(pg_catalog.=) (auth.jwt() -> 'user_metadata' ->> 'team')));
CREATE OR REPLACE FUNCTION public.agent_note_teams() RETURNS bigint
  LANGUAGE sql STABLE SET search_path = '' AS $$ SELECT pg_catalog.count(*) FROM public.agent_note_teams_v $$;
REVOKE ALL ON public.agent_notes, public.agent_note_members FROM PUBLIC, anon, authenticated;
REVOKE ALL ON public.agent_note_members_v, public.agent_note_teams_v FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.agent_notes, public.agent_note_members_v, public.agent_note_teams_v TO authenticated;
GRANT ALL ON public.agent_notes, public.agent_note_members TO service_role;
REVOKE ALL ON FUNCTION public.agent_note_teams() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.agent_note_teams() TO authenticated;
INSERT INTO public.agent_note_members VALUES ('00000000-0000-4000-a000-00000000000b', 'ops') ON CONFLICT DO NOTHING;
INSERT INTO public.agent_notes (note) SELECT 'ops rota' WHERE NOT EXISTS (SELECT FROM public.agent_notes);
NOTIFY pgrst, 'reload schema';
`

// No privileged session of check reads a view of the file, embedded and on a --dsn server: the
// run completes, under both privilege models, with its requests made, and no trap ran.
func TestPrivilegedSessionsReadNoViewOfTheFile(t *testing.T) {
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			initSidecar(t, "notes.sql")
			write(t, "notes.sql", viewTraps)
			var rep *report.Report
			if mode == "dsn" {
				rep = checkReport(t, "--dsn", scratchtest.SharedDSNServer(t).DSN)
			} else {
				rep = sharedCheck(t)
			}
			if s := rep.Servers; len(s) != 1 || s[0].Kind != mode {
				t.Fatalf("ran on %+v, want one %s server", s, mode)
			}
			var text strings.Builder
			observed := false
			for _, ph := range rep.Phases {
				for _, n := range ph.Notes {
					observed = observed || strings.HasPrefix(n, "observed: ")
					text.WriteString(n + "\n")
				}
				for _, f := range ph.Findings {
					text.WriteString(f.Message + "\n")
				}
			}
			if strings.Contains(text.String(), viewTrapMarker) {
				t.Errorf("a privileged session ran a view of the file:\n%s", text.String())
			}
			if !observed {
				t.Errorf("the audit observed no request: the views were never in reach")
			}
		})
	}
}
