package cli

import (
	"strings"
	"testing"
)

// teamNotes is a sidecar of team notes in the usual style: a member reads his team's notes, and
// any signed-in user may add himself to any team (the join policy checks only whose row it is),
// so any user can read any team's notes.
const teamNotes = `-- Sidecar: team notes, read by the team's members.
CREATE TABLE IF NOT EXISTS public.team_members (
  team_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, user_id)
);
ALTER TABLE public.team_members ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS team_members_join ON public.team_members;
CREATE POLICY team_members_join ON public.team_members FOR INSERT TO authenticated
  WITH CHECK (user_id = (SELECT auth.uid()));
DROP POLICY IF EXISTS team_members_self ON public.team_members;
CREATE POLICY team_members_self ON public.team_members FOR SELECT TO authenticated
  USING (user_id = (SELECT auth.uid()));
DROP POLICY IF EXISTS team_members_service ON public.team_members;
CREATE POLICY team_members_service ON public.team_members FOR ALL TO service_role USING (true) WITH CHECK (true);
-- ledgercheck:ignore grant-to-api-role members join their team from the app
GRANT SELECT, INSERT ON public.team_members TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.team_members TO service_role;

CREATE TABLE IF NOT EXISTS public.team_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  team_id uuid NOT NULL,
  body text NOT NULL
);
ALTER TABLE public.team_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS team_notes_members ON public.team_notes;
CREATE POLICY team_notes_members ON public.team_notes FOR SELECT TO authenticated
  USING (team_id IN (SELECT m.team_id FROM public.team_members m WHERE m.user_id = (SELECT auth.uid())));
DROP POLICY IF EXISTS team_notes_service ON public.team_notes;
CREATE POLICY team_notes_service ON public.team_notes FOR ALL TO service_role USING (true) WITH CHECK (true);
-- ledgercheck:ignore grant-to-api-role members read their team's notes
GRANT SELECT ON public.team_notes TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.team_notes TO service_role;

NOTIFY pgrst, 'reload schema';
`

// teamNotesThroughAView is the same sidecar whose notes' policy looks the member up in a view
// of the memberships, which the app also inserts through.
var teamNotesThroughAView = strings.Replace(strings.Replace(teamNotes, "FROM public.team_members m WHERE", "FROM public.my_teams m WHERE", 1),
	"\nCREATE TABLE IF NOT EXISTS public.team_notes", `
CREATE OR REPLACE VIEW public.my_teams WITH (security_invoker = true) AS
  SELECT m.team_id, m.user_id FROM public.team_members m;
-- ledgercheck:ignore grant-to-api-role the app lists and joins the user's teams through the view
GRANT SELECT, INSERT ON public.my_teams TO authenticated;
GRANT SELECT ON public.my_teams TO service_role;

CREATE TABLE IF NOT EXISTS public.team_notes`, 1)

// teamNotesThroughAHelper is the same sidecar whose notes' policy asks a SECURITY DEFINER helper
// whether the user is a member (the usual way to keep a policy from reading a table whose own
// policies read back), its definer rights accepted with reasons, as a pull request would.
var teamNotesThroughAHelper = strings.Replace(teamNotes,
	"CREATE POLICY team_notes_members ON public.team_notes FOR SELECT TO authenticated\n  USING (team_id IN (SELECT m.team_id FROM public.team_members m WHERE m.user_id = (SELECT auth.uid())));",
	`-- ledgercheck:ignore security-definer-public-execute the policy asks it, as every signed-in user
CREATE OR REPLACE FUNCTION public.is_team_member(p_team uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM public.team_members m WHERE m.team_id = p_team AND m.user_id = (SELECT auth.uid()));
END $$;
REVOKE ALL ON FUNCTION public.is_team_member(uuid) FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the notes' policy calls it for the signed-in user
GRANT EXECUTE ON FUNCTION public.is_team_member(uuid) TO authenticated;
CREATE POLICY team_notes_members ON public.team_notes FOR SELECT TO authenticated
  USING ((SELECT public.is_team_member(team_id)));`, 1)

// teamNotesThroughAFunction is the same sidecar where users join a team only through a SECURITY
// DEFINER join_team(p_team uuid) of the app's join flow, which adds the caller to the team he
// names, its side effect accepted with a reason, as a pull request would: any user joins any team.
var teamNotesThroughAFunction = strings.Replace(strings.Replace(teamNotes, `DROP POLICY IF EXISTS team_members_join ON public.team_members;
CREATE POLICY team_members_join ON public.team_members FOR INSERT TO authenticated
  WITH CHECK (user_id = (SELECT auth.uid()));
`, "", 1), `-- ledgercheck:ignore grant-to-api-role members join their team from the app
GRANT SELECT, INSERT ON public.team_members TO authenticated;`, `-- ledgercheck:ignore grant-to-api-role members list their teams
GRANT SELECT ON public.team_members TO authenticated;
REVOKE INSERT, UPDATE, DELETE ON public.team_members FROM anon, authenticated;

-- Joining a team goes through the app's join flow.
-- ledgercheck:ignore security-definer-public-execute it adds the caller himself, nobody else
-- ledgercheck:ignore request-side-effect it adds the caller's own membership, nothing else
CREATE OR REPLACE FUNCTION public.join_team(p_team uuid) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  INSERT INTO public.team_members (team_id, user_id) VALUES (p_team, (SELECT auth.uid())) ON CONFLICT DO NOTHING;
$$;
REVOKE ALL ON FUNCTION public.join_team(uuid) FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the app's join button calls it
GRANT EXECUTE ON FUNCTION public.join_team(uuid) TO authenticated;`, 1)

// TestSelfEnrolmentIsSeenOnAHostedProject: check, with no fixture, generates rows for the
// tables before the observation adds its own (another seed, values shared with nothing of the
// observation's): the members' notes then belong to no team the observation's users are in. The
// enrolment is seen in both privilege models all the same: the notes get rows of the shared
// values too, and a user copies every membership of the other's, not the first the reader met.
// Before, it was seen only with the old default privileges, whose database had no rows yet.
//
// Through a helper function, the enrolment was not tried either: PostgreSQL records no
// dependency of a function's body on the tables it reads. The relations the helper's source
// names are tried now.
//
// Through a view of the memberships (over the one table, with its columns), the enrolment was not
// tried at all and check passed: the reader reads no view, and so found no membership to copy.
// It reads the view's table now, and the user inserts through the view.
//
// Through a function that adds the caller to the team he names, check passed (a warning only):
// its call, with a generated team, added a membership of no team; the user now calls it with each
// of the other user's teams.
func TestSelfEnrolmentIsSeenOnAHostedProject(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"table", teamNotes, "teams.sql:9:1 user-enrols-self: a signed-in user can add himself to table public.team_members"},
		{"view", teamNotesThroughAView, "teams.sql:33:1 user-enrols-self: a signed-in user can add himself to view public.my_teams"},
		{"helper", teamNotesThroughAHelper, "teams.sql:9:1 user-enrols-self: a signed-in user can add himself to table public.team_members"},
		{"function", teamNotesThroughAFunction, "teams.sql:20:1 user-enrols-self: a signed-in user can call public.join_team("},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "table" && c.src == teamNotes {
				t.Fatal("the variant is the table's sidecar: its replacement matched nothing")
			}
			initSidecar(t, "teams.sql")
			write(t, "teams.sql", c.src)
			rep := sharedCheck(t)
			var got []string
			for _, ph := range rep.Phases {
				for _, f := range ph.Findings {
					if f.Severity == "error" {
						got = append(got, f.Pos.String()+" "+f.Rule+": "+f.Message)
					}
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) || strings.Contains(got[0], "only on") {
				t.Errorf("errors %q, want one %q... in both privilege models", got, c.want)
			}
		})
	}
}
