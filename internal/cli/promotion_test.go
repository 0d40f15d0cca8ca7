package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// staffReports is a sidecar in the usual style: each user edits his own profile (every column of
// it), and admins, whom a SECURITY DEFINER helper recognises by the profile's role, read every
// report. Any user can set his own role to 'admin'.
const staffReports = `-- Sidecar: staff reports, read by their authors and by admins.
CREATE TABLE IF NOT EXISTS public.profiles (
  id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
  display_name text,
  role text NOT NULL DEFAULT 'member'
);
ALTER TABLE public.profiles ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS profiles_own_read ON public.profiles;
CREATE POLICY profiles_own_read ON public.profiles FOR SELECT TO authenticated
  USING (id = (SELECT auth.uid()));
DROP POLICY IF EXISTS profiles_own_update ON public.profiles;
CREATE POLICY profiles_own_update ON public.profiles FOR UPDATE TO authenticated
  USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
DROP POLICY IF EXISTS profiles_service ON public.profiles;
CREATE POLICY profiles_service ON public.profiles FOR ALL TO service_role USING (true) WITH CHECK (true);
-- ledgercheck:ignore grant-to-api-role users edit their own profile from the app
GRANT SELECT, UPDATE ON public.profiles TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.profiles TO service_role;

-- ledgercheck:ignore security-definer-public-execute the reports' policy asks it for the signed-in user
CREATE OR REPLACE FUNCTION public.is_admin() RETURNS boolean
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT coalesce((SELECT p.role = 'admin' FROM public.profiles p WHERE p.id = (SELECT auth.uid())), false);
$$;
REVOKE ALL ON FUNCTION public.is_admin() FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the reports' policy calls it
-- ledgercheck:ignore user-reads-others-rows it returns the caller's own flag, nothing of another profile
GRANT EXECUTE ON FUNCTION public.is_admin() TO authenticated;

CREATE TABLE IF NOT EXISTS public.reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  author_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  body text NOT NULL
);
ALTER TABLE public.reports ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS reports_own_or_admin ON public.reports;
CREATE POLICY reports_own_or_admin ON public.reports FOR SELECT TO authenticated
  USING (author_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
DROP POLICY IF EXISTS reports_service ON public.reports;
CREATE POLICY reports_service ON public.reports FOR ALL TO service_role USING (true) WITH CHECK (true);
-- ledgercheck:ignore grant-to-api-role users read their reports, admins all
GRANT SELECT ON public.reports TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.reports TO service_role;

NOTIFY pgrst, 'reload schema';
`

// TestUserMakingHimselfAdminFailsCheck: check passed this sidecar, its helper's reading of the
// profiles accepted with a reason as a reviewer would (the helper returns the caller's own flag):
// the observation added users to memberships but never changed a user's own row of a table a
// policy reads. A user now sets the column the policy (here its helper) names to the word it compares
// with, and reads the reports again: user-promotes-self at the profile's UPDATE policy, in both
// privilege models.
func TestUserMakingHimselfAdminFailsCheck(t *testing.T) {
	initSidecar(t, "reports.sql")
	write(t, "reports.sql", staffReports)
	rep := sharedCheck(t)
	var got []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Rule == "user-promotes-self" {
				got = append(got, f.Pos.String()+": "+f.Message)
			}
		}
	}
	want := "reports.sql:12:1: a signed-in user can set role = 'admin' on his own row of table public.profiles and then read"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) || strings.Contains(got[0], "only on") || !rep.Failed() {
		t.Errorf("user-promotes-self findings %q (failed %t), want one %q... in both privilege models", got, rep.Failed(), want)
	}
}

// onboardingReports is staffReports on a hosted project's footing: users may update only their
// display name (the old defaults' table-wide UPDATE revoked), and two SECURITY DEFINER functions
// of onboarding each write the caller's own profile, their side effect accepted with a reason as
// a reviewer would: set_my_display_name, harmless, and set_my_role, which lets any user make
// himself an admin by a call.
var onboardingReports = strings.NewReplacer(
	"GRANT SELECT, UPDATE ON public.profiles TO authenticated;\n",
	`GRANT SELECT ON public.profiles TO authenticated;
REVOKE INSERT, UPDATE, DELETE ON public.profiles FROM anon, authenticated;
-- ledgercheck:ignore grant-to-api-role users edit their display name
GRANT UPDATE (display_name) ON public.profiles TO authenticated;
`,
	"CREATE TABLE IF NOT EXISTS public.reports (",
	`-- Onboarding: a user names himself and picks what he does in the team.
-- ledgercheck:ignore security-definer-public-execute it sets the caller's own name, nothing else
-- ledgercheck:ignore request-side-effect it updates the caller's own profile, nothing else
CREATE OR REPLACE FUNCTION public.set_my_display_name(new_name text) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  UPDATE public.profiles SET display_name = new_name WHERE id = (SELECT auth.uid());
$$;
REVOKE ALL ON FUNCTION public.set_my_display_name(text) FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the onboarding screen calls it
GRANT EXECUTE ON FUNCTION public.set_my_display_name(text) TO authenticated;
-- ledgercheck:ignore security-definer-public-execute it sets the caller's own role, nothing else
-- ledgercheck:ignore request-side-effect it updates the caller's own profile, nothing else
CREATE OR REPLACE FUNCTION public.set_my_role(new_role text) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  UPDATE public.profiles SET role = new_role WHERE id = (SELECT auth.uid());
$$;
REVOKE ALL ON FUNCTION public.set_my_role(text) FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the onboarding screen calls it
GRANT EXECUTE ON FUNCTION public.set_my_role(text) TO authenticated;

CREATE TABLE IF NOT EXISTS public.reports (`).Replace(staffReports)

// onboardingReportsEnum is onboardingReports with the role an enum, as the function's argument:
// a value of that type is first the other user's (here 'member' too), then each word of the
// policies' literals.
var onboardingReportsEnum = strings.NewReplacer(
	"CREATE TABLE IF NOT EXISTS public.profiles (",
	"DO $$ BEGIN CREATE TYPE public.team_role AS ENUM ('member', 'admin'); EXCEPTION WHEN duplicate_object THEN NULL; END $$;\nCREATE TABLE IF NOT EXISTS public.profiles (",
	"role text NOT NULL DEFAULT 'member'", "role public.team_role NOT NULL DEFAULT 'member'",
	"set_my_role(new_role text)", "set_my_role(new_role public.team_role)",
	"set_my_role(text)", "set_my_role(public.team_role)").Replace(onboardingReports)

// TestUserPromotingHimselfThroughAFunctionFailsCheck: check passed onboardingReports (a warning
// only): a promotion was only a PATCH of the user's own row, which the column grant refuses here,
// and set_my_role's call, with a generated role, was a side effect the reviewer accepted. A user
// now calls each function whose call wrote his own row of a table a policy reads with each value
// that would let him in, and reads the reports again: user-promotes-self at set_my_role's
// CREATE, in both privilege models, and nothing at set_my_display_name's. With the role an enum,
// check passed too until the words were tried for an argument of a type other than text.
func TestUserPromotingHimselfThroughAFunctionFailsCheck(t *testing.T) {
	for _, c := range []struct{ name, src string }{{"text", onboardingReports}, {"enum", onboardingReportsEnum}} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "enum" && !strings.Contains(c.src, "new_role public.team_role") {
				t.Fatal("the enum variant's replacements matched nothing")
			}
			initSidecar(t, "reports.sql")
			write(t, "reports.sql", c.src)
			rep := sharedCheck(t)
			var got []string
			for _, ph := range rep.Phases {
				for _, f := range ph.Findings {
					if f.Severity == finding.SevError {
						got = append(got, f.Pos.String()+": "+f.Message+" ["+f.Rule+"]")
					}
				}
			}
			line := 1 + strings.Count(c.src[:strings.Index(c.src, "CREATE OR REPLACE FUNCTION public.set_my_role")], "\n")
			want := fmt.Sprintf("reports.sql:%d:1: a signed-in user can call public.set_my_role('admin'), which writes his own row of table public.profiles, and then read", line)
			if len(got) != 1 || !strings.HasPrefix(got[0], want) || strings.Contains(got[0], "only on") || !strings.HasSuffix(got[0], "[user-promotes-self]") {
				t.Errorf("errors %q, want one %q... [user-promotes-self] in both privilege models", got, want)
			}
		})
	}
}
