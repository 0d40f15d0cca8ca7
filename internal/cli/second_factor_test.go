package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/observe"
)

// mfaReports is staffReports' reports, read by their authors and, where using says so, by users
// who signed in with a second factor: policy replaces reports_own_or_admin (its USING), and extra
// is SQL before the table (a helper the policy calls).
func mfaReports(extra, policy string) string {
	reports := staffReports[strings.Index(staffReports, "CREATE TABLE IF NOT EXISTS public.reports ("):]
	reports = strings.Replace(reports, "  USING (author_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));\n", policy, 1)
	return "-- Sidecar: reports, read by their authors and by staff who signed in with a second factor.\n" + extra + reports
}

// secondFactorHelper is an invoker's SQL function that says whether the JWT lists an
// authenticator app's code among how the user signed in.
const secondFactorHelper = `CREATE OR REPLACE FUNCTION public.signed_in_with_totp() RETURNS boolean
  LANGUAGE sql STABLE SET search_path = '' AS $$
  SELECT coalesce((SELECT auth.jwt()) -> 'amr' @> '[{"method": "totp"}]'::jsonb, false);
$$;
REVOKE ALL ON FUNCTION public.signed_in_with_totp() FROM PUBLIC, anon;
-- ledgercheck:ignore grant-to-api-role the reports' policy calls it
GRANT EXECUTE ON FUNCTION public.signed_in_with_totp() TO authenticated;

`

// TestPolicyTrustingASecondFactorFailsCheck: a read policy that lets in, besides each report's
// author, whoever signed in with a second factor (the JWT's aal is aal2, or its amr lists totp)
// passed check (two lock warnings): the observation's users signed in with a password alone, and
// no user could read another's report. Any user may enrol an authenticator app for himself and
// sign in with it; user A now does, and reads every report, at the policy. The controls ask for
// aal2 as Supabase's guide to MFA does, in a restrictive policy (over the authors' policy, and
// over one that lets every user read every report: a restriction, which the factor lifts, is not
// what opens the rows), and besides ownership in a permissive one: the factor then opens nothing
// of another user's, and check passes.
func TestPolicyTrustingASecondFactorFailsCheck(t *testing.T) {
	own := "  USING (author_id = (SELECT auth.uid()));\n"
	aal2 := "(SELECT auth.jwt() ->> 'aal') = 'aal2'"
	restrictive := own + "DROP POLICY IF EXISTS reports_mfa ON public.reports;\n" +
		"CREATE POLICY reports_mfa ON public.reports AS RESTRICTIVE FOR SELECT TO authenticated\n  USING (" + aal2 + ");\n"
	permissive := mfaReports("", "  USING (author_id = (SELECT auth.uid()) OR "+aal2+");\n")
	helper := mfaReports(secondFactorHelper, "  USING (author_id = (SELECT auth.uid()) OR (SELECT public.signed_in_with_totp()));\n")
	at := func(src string) string {
		line := strings.Count(src[:strings.Index(src, "CREATE POLICY reports_own_or_admin")], "\n") + 1
		return fmt.Sprintf("reports.sql:%d:1 audit %s", line, observe.RuleClientValueWidensAccess)
	}
	checkReportsErrors(t, []errorsCase{
		{"aal2 besides ownership", permissive, []string{at(permissive)}},
		{"amr through a helper", helper, []string{at(helper)}},
		{"aal2 restrictive", mfaReports("", restrictive), nil},
		{"aal2 restrictive over every row", mfaReports("", strings.Replace(restrictive, own, "  USING (true);\n", 1)), nil},
		{"aal2 and ownership", mfaReports("", "  USING (author_id = (SELECT auth.uid()) AND "+aal2+");\n"), nil},
	})
}

// TestClientValueOpeningOnlyOwnRowsPasses: a policy that lets each author read his reports once
// his user_metadata says he verified his address opens nothing of another user's, however the
// user sets it: check passes. It failed (client-value-widens-access: user A reads 3 rows instead
// of 0) while any row more counted, where the rows' owners show as much as where they do not.
func TestClientValueOpeningOnlyOwnRowsPasses(t *testing.T) {
	checkReportsErrors(t, []errorsCase{
		{"user_metadata besides ownership", mfaReports("", "  USING (author_id = (SELECT auth.uid()) AND (auth.jwt() -> 'user_metadata' ->> 'verified') = 'yes');\n"), nil},
	})
}
