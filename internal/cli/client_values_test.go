package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/observe"
)

// staffNotes is a sidecar whose read policy lets in the users whose user_metadata says they are
// staff, reaching the key through jsonb_extract_path_text rather than ->>: every user edits his
// own user_metadata, so any user reads every note. Everything else in it is what a sidecar
// should be, and its grant to authenticated is suppressed with a reason, as a pull request that
// means it would.
const staffNotes = "-- Sidecar: agent notes for the staff console (read by staff through RLS).\n" + agentNotesTable + `DROP POLICY IF EXISTS agent_notes_staff ON public.agent_notes;
CREATE POLICY agent_notes_staff ON public.agent_notes FOR SELECT TO authenticated
  USING (pg_catalog.jsonb_extract_path_text(auth.jwt(), 'user_metadata', 'team') OPERATOR(pg_catalog.=) 'staff');
REVOKE ALL ON public.agent_notes FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role the staff console reads notes through row level security
GRANT SELECT ON public.agent_notes TO authenticated;
GRANT ALL ON public.agent_notes TO service_role;
INSERT INTO public.agent_notes (note) SELECT 'first note' WHERE NOT EXISTS (SELECT FROM public.agent_notes);
NOTIFY pgrst, 'reload schema';
`

// A policy that trusts user_metadata fails check at the policy, however it spells the path to
// the key: user A, setting team = staff, reads the note he could not read before.
func TestPolicyTrustingUserMetadataFailsCheckInAnySpelling(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", staffNotes)
	rep := sharedCheck(t)
	if w := "notes.sql:10:1 audit " + observe.RuleClientValueWidensAccess; !rep.Failed() || !slices.Equal(deploymentErrors(rep), []string{w}) {
		t.Errorf("errors %q (failed %t), want [%s]", deploymentErrors(rep), rep.Failed(), w)
	}
}

// staffByMetadataColumn lets in, besides each report's author, the users a SECURITY DEFINER
// helper recognises as staff by auth.users.raw_user_meta_data, the column GoTrue writes when a
// user updates his own metadata (supabase.auth.updateUser({data: {role: 'staff'}})): any user
// reads every report. Its helper's rights are accepted with a reason, as a reviewer would.
var staffByMetadataColumn = `-- Sidecar: staff reports, read by their authors and by staff.
-- ledgercheck:ignore security-definer-public-execute the reports' policy asks it for the signed-in user
CREATE OR REPLACE FUNCTION public.is_staff() RETURNS boolean
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT coalesce((SELECT u.raw_user_meta_data ->> 'role' = 'staff' FROM auth.users u WHERE u.id = (SELECT auth.uid())), false);
$$;
REVOKE ALL ON FUNCTION public.is_staff() FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the reports' policy calls it
GRANT EXECUTE ON FUNCTION public.is_staff() TO authenticated;

` + strings.NewReplacer("reports_own_or_admin", "reports_own_or_staff", "public.is_admin()", "public.is_staff()", "admins all", "staff all").
	Replace(staffReports[strings.Index(staffReports, "CREATE TABLE IF NOT EXISTS public.reports ("):])

// TestPolicyTrustingTheMetadataColumnFailsCheck: check passed staffByMetadataColumn (two lock
// warnings): the observation set user_metadata in the JWT's claims only, and the helper reads the
// column the claim comes from. The user's row of auth.users now holds what his requests set too,
// as GoTrue's would: user A, setting role = staff, reads every report, at the policy. The
// control reads raw_app_meta_data, which only the service role writes: no error.
func TestPolicyTrustingTheMetadataColumnFailsCheck(t *testing.T) {
	if strings.Count(staffByMetadataColumn[:strings.Index(staffByMetadataColumn, "CREATE POLICY reports_own_or_staff")], "\n") != 17 {
		t.Fatal("the policy is not at line 18")
	}
	checkReportsErrors(t, []errorsCase{
		{"user metadata", staffByMetadataColumn, []string{"reports.sql:18:1 audit " + observe.RuleClientValueWidensAccess}},
		{"app metadata", strings.Replace(staffByMetadataColumn, "raw_user_meta_data", "raw_app_meta_data", 1), nil},
	})
}

// errorsCase is a reports.sql and the errors check must report of it (none: it passes).
type errorsCase struct {
	name, src string
	want      []string
}

// checkReportsErrors checks each case's reports.sql, a sidecar of its own, in a subtest.
func checkReportsErrors(t *testing.T, cases []errorsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			initSidecar(t, "reports.sql")
			write(t, "reports.sql", c.src)
			rep := sharedCheck(t)
			if got := deploymentErrors(rep); !slices.Equal(got, c.want) || rep.Failed() != (c.want != nil) {
				t.Errorf("errors %q (failed %t), want %q", got, rep.Failed(), c.want)
			}
		})
	}
}

// signupRoles is staffReports where a user creates his profile once and may not change it (an
// INSERT of his id and name, no UPDATE), its role taken by a default from what he put in his
// user_metadata at sign-up: supabase.auth.signUp({..., options: {data: {role: 'admin'}}}) and an
// insert of his profile make him an admin.
var signupRoles = strings.NewReplacer(
	"  id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,\n",
	"  id uuid PRIMARY KEY DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,\n",
	"  role text NOT NULL DEFAULT 'member'\n",
	"  role text NOT NULL DEFAULT coalesce(auth.jwt() -> 'user_metadata' ->> 'role', 'member')\n",
	`DROP POLICY IF EXISTS profiles_own_update ON public.profiles;
CREATE POLICY profiles_own_update ON public.profiles FOR UPDATE TO authenticated
  USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
`, `DROP POLICY IF EXISTS profiles_own_insert ON public.profiles;
CREATE POLICY profiles_own_insert ON public.profiles FOR INSERT TO authenticated
  WITH CHECK (id = (SELECT auth.uid()));
`,
	`-- ledgercheck:ignore grant-to-api-role users edit their own profile from the app
GRANT SELECT, UPDATE ON public.profiles TO authenticated;
`, `REVOKE ALL ON public.profiles FROM anon, authenticated;
-- ledgercheck:ignore grant-to-api-role users create their own profile once, and read it
GRANT SELECT, INSERT (id, display_name) ON public.profiles TO authenticated;
`).Replace(staffReports)

// TestRoleDefaultingToTheUsersMetadataFailsCheck: check passed signupRoles (two lock warnings):
// the observation tried user_metadata only on reads, and the enrolments copy the other user's
// row, whose role the column grant refuses. User D, who owns no row, now adds his own profile,
// once without metadata and then with each word of the reports' policies in the key the default
// names: with role = admin he reads every report, at the profiles' CREATE TABLE, where the default
// is. The same with a trigger that sets the role before the insert. The control defaults the
// role from app_metadata, which only the service role writes.
func TestRoleDefaultingToTheUsersMetadataFailsCheck(t *testing.T) {
	if strings.Count(signupRoles, "profiles_own_insert") != 2 || !strings.Contains(signupRoles, "INSERT (id, display_name)") || !strings.Contains(signupRoles, "'user_metadata' ->> 'role'") {
		t.Fatal("signupRoles' replacements matched nothing")
	}
	if strings.Count(signupRolesByTrigger, "'user_metadata' ->> 'role'") != 1 || !strings.Contains(signupRolesByTrigger, "CREATE TRIGGER profiles_role_from_signup") {
		t.Fatal("signupRolesByTrigger's replacements matched nothing")
	}
	checkReportsErrors(t, []errorsCase{
		{"user metadata", signupRoles, []string{"reports.sql:2:1 audit " + observe.RuleClientValueWidensAccess}},
		{"app metadata", strings.Replace(signupRoles, "'user_metadata' ->> 'role'", "'app_metadata' ->> 'role'", 1), nil},
		{"trigger", signupRolesByTrigger, []string{"reports.sql:2:1 audit " + observe.RuleClientValueWidensAccess}},
	})
}

// signupRolesByTrigger is signupRoles with the role set by a trigger before the insert instead
// of by the column's default.
var signupRolesByTrigger = strings.NewReplacer(
	"  role text NOT NULL DEFAULT coalesce(auth.jwt() -> 'user_metadata' ->> 'role', 'member')\n",
	"  role text NOT NULL DEFAULT 'member'\n",
	"-- ledgercheck:ignore security-definer-public-execute the reports' policy asks it for the signed-in user\n",
	`-- A new profile's role is what the user picked at sign-up.
CREATE OR REPLACE FUNCTION public.profiles_role_from_signup() RETURNS trigger
  LANGUAGE plpgsql SET search_path = '' AS $fn$
BEGIN
  NEW.role := coalesce(auth.jwt() -> 'user_metadata' ->> 'role', 'member');
  RETURN NEW;
END $fn$;
DROP TRIGGER IF EXISTS profiles_role_from_signup ON public.profiles;
CREATE TRIGGER profiles_role_from_signup BEFORE INSERT ON public.profiles
  FOR EACH ROW EXECUTE FUNCTION public.profiles_role_from_signup();

-- ledgercheck:ignore security-definer-public-execute the reports' policy asks it for the signed-in user
`).Replace(signupRoles)
