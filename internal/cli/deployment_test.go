package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// agentNotesTable is the table of the sidecars below, with row level security and a policy for
// service_role: lines 2 to 8 of each.
const agentNotesTable = `CREATE TABLE IF NOT EXISTS public.agent_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  note text NOT NULL
);
ALTER TABLE public.agent_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agent_notes_service ON public.agent_notes;
CREATE POLICY agent_notes_service ON public.agent_notes FOR ALL TO service_role USING (true) WITH CHECK (true);
`

// productionOnlyFeed is a sidecar whose read policy for anon asks which database it runs in:
// every Supabase project's is named postgres, ledgercheck's scratch database is not. In
// production anon reads every note; in the scratch database, none. Everything else in it is what
// a sidecar should be, and its grant to the API roles is suppressed with a reason, as a pull
// request that means it would.
const productionOnlyFeed = "-- Sidecar: agent notes shared with the public feed (read-only for anon, guarded by RLS).\n" + agentNotesTable + `DROP POLICY IF EXISTS agent_notes_public ON public.agent_notes;
CREATE POLICY agent_notes_public ON public.agent_notes
  FOR SELECT TO anon, authenticated USING (pg_catalog.current_database() OPERATOR(pg_catalog.=) 'postgres');
REVOKE ALL ON public.agent_notes FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role the public feed reads notes through row level security
GRANT SELECT ON public.agent_notes TO anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;
NOTIFY pgrst, 'reload schema';
`

// productionOnlyFeedBuiltAtRunTime makes the same policy with SQL built at run time, which lint
// cannot read, and alters one its text created harmless (USING false) into another: the
// installed policies are read back from the catalog.
const productionOnlyFeedBuiltAtRunTime = "-- Sidecar: agent notes shared with the public feed; its read policy is made in a DO block.\n" + agentNotesTable + `DROP POLICY IF EXISTS agent_notes_own ON public.agent_notes;
CREATE POLICY agent_notes_own ON public.agent_notes FOR SELECT TO authenticated USING (false);
DO $$
BEGIN
  EXECUTE pg_catalog.format('ALTER POLICY %I ON public.agent_notes USING (%s)',
    'agent_notes_own', 'session' || '_user = ''authenticator''');
  EXECUTE pg_catalog.format('DROP POLICY IF EXISTS %I ON public.agent_notes', 'agent_notes_' || 'feed');
  EXECUTE pg_catalog.format('CREATE POLICY %I ON public.agent_notes FOR SELECT TO anon USING (%s)',
    'agent_notes_feed', 'pg_catalog.current_' || 'database() = ''postgres''');
END $$;
REVOKE ALL ON public.agent_notes FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role the public feed reads notes through row level security
GRANT SELECT ON public.agent_notes TO anon;
GRANT ALL ON public.agent_notes TO service_role;
NOTIFY pgrst, 'reload schema';
`

// openedInProduction locks its table down, then opens it to anon where the database is a
// Supabase project's, with SQL built at run time: the install sees the locked table.
const openedInProduction = "-- Sidecar: agent notes, locked down.\n" + agentNotesTable + `REVOKE ALL ON public.agent_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;
DO $$ BEGIN
  IF pg_catalog.current_database() = 'postgres' THEN
    EXECUTE pg_catalog.format('ALTER TABLE %I.%I DISABLE ROW LEVEL SECURITY', 'public', 'agent_notes');
    EXECUTE pg_catalog.format('GRANT SELECT ON %I.%I TO %I', 'public', 'agent_notes', 'anon');
  END IF;
END $$;
NOTIFY pgrst, 'reload schema';
`

// A file that opens its table where it is deployed to a Supabase project fails check at the
// question; the install and the observation saw only the locked table.
func TestInstallThatAsksWhereItIsDeployedFailsCheck(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", openedInProduction)
	rep := sharedCheck(t)
	if w := "notes.sql:12:6 lint " + lint.InstallReadsDeployment; !slices.Equal(deploymentErrors(rep), []string{w}) {
		t.Errorf("errors %q (failed %t), want [%s]", deploymentErrors(rep), rep.Failed(), w)
	}
}

// A policy that decides by the deployment fails check at its condition. The observation,
// which runs in the scratch database, sees anon read nothing (no finding of its own): the lint
// rule is what stands for production.
func TestAccessThatAsksWhereItRunsFailsCheck(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", productionOnlyFeed)
	checkDeploymentErrors(t, sharedCheck(t), "notes.sql:11:44 lint")
}

// The same policy made by SQL built at run time, and one altered by it, fail check at the EXECUTE
// that names each, in the phase that reads what the install made.
func TestAccessThatAsksWhereItRunsFailsCheckWhenBuiltAtRunTime(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", productionOnlyFeedBuiltAtRunTime)
	checkDeploymentErrors(t, sharedCheck(t), "notes.sql:13:3 lint installed", "notes.sql:16:3 lint installed")
}

// checkDeploymentErrors fails t unless the report's errors are access-varies-with-deployment at
// each of want ("POSITION PHASE"), and the audit observed requests, which saw nothing to report.
func checkDeploymentErrors(t *testing.T, rep *report.Report, want ...string) {
	t.Helper()
	observed := false
	for _, ph := range rep.Phases {
		for _, n := range ph.Notes {
			observed = observed || strings.HasPrefix(n, "observed: ")
		}
	}
	var w []string
	for _, x := range want {
		w = append(w, x+" "+lint.AccessVariesWithDeployment)
	}
	if !rep.Failed() || !slices.Equal(deploymentErrors(rep), w) {
		t.Errorf("errors %q (failed %t), want %q", deploymentErrors(rep), rep.Failed(), w)
	}
	if !observed {
		t.Errorf("the audit observed no request: the test shows nothing of what observation sees")
	}
}

// deploymentErrors is every error of rep as "POSITION PHASE RULE" (the phase without its
// variant's name).
func deploymentErrors(rep *report.Report) []string {
	var errs []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Severity == "error" {
				errs = append(errs, fmt.Sprintf("%s %s %s", f.Pos, strings.TrimSuffix(ph.Name, " artifact"), f.Rule))
			}
		}
	}
	return errs
}

// feedThatAsksWhereItRuns is a sidecar whose notes are service_role's alone, with a function
// anon may call that returns them where the database is a Supabase project's: a public feed by
// design, its definer rights suppressed with reasons, as a pull request that means it would. The
// observation calls it in the scratch database, where it returns nothing.
const feedThatAsksWhereItRuns = "-- Sidecar: agent notes, read by the public through a feed function.\n" + agentNotesTable + `REVOKE ALL ON public.agent_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;
-- ledgercheck:ignore security-definer-public-execute the public feed reads notes for anon by design
CREATE OR REPLACE FUNCTION public.agent_notes_feed() RETURNS SETOF text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  IF pg_catalog.current_database() OPERATOR(pg_catalog.=) 'postgres' THEN
    RETURN QUERY SELECT n.note FROM public.agent_notes n;
  END IF;
END $$;
REVOKE ALL ON FUNCTION public.agent_notes_feed() FROM PUBLIC;
-- ledgercheck:ignore grant-to-api-role the public feed is anon's
GRANT EXECUTE ON FUNCTION public.agent_notes_feed() TO anon;
NOTIFY pgrst, 'reload schema';
`

// A function the Data API can call that asks where it runs fails check at its CREATE FUNCTION:
// the observation's call in the scratch database returned nothing.
func TestFunctionThatAsksWhereItRunsFailsCheck(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", feedThatAsksWhereItRuns)
	checkDeploymentErrors(t, sharedCheck(t), "notes.sql:12:1 lint")
}

// feedViewThatAsksWhereItRuns is the same sidecar read through a view anon may select, whose
// query keeps the notes only where the database is a Supabase project's: the observation's read
// of it in the scratch database returns nothing.
const feedViewThatAsksWhereItRuns = "-- Sidecar: agent notes, read by the public through a feed view.\n" + agentNotesTable + `REVOKE ALL ON public.agent_notes FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.agent_notes TO service_role;
-- ledgercheck:ignore security-definer-view the public feed reads notes for anon by design
CREATE OR REPLACE VIEW public.agent_notes_feed AS
  SELECT n.note FROM public.agent_notes n
  WHERE pg_catalog.current_database() OPERATOR(pg_catalog.=) 'postgres';
REVOKE ALL ON public.agent_notes_feed FROM PUBLIC, authenticated;
-- ledgercheck:ignore grant-to-api-role the public feed is anon's
GRANT SELECT ON public.agent_notes_feed TO anon;
NOTIFY pgrst, 'reload schema';
`

// A view the Data API can read whose query asks where it runs fails check at its CREATE VIEW,
// once (not also as a read while the file is deployed, which a view's query is not).
func TestViewThatAsksWhereItRunsFailsCheck(t *testing.T) {
	initSidecar(t, "notes.sql")
	write(t, "notes.sql", feedViewThatAsksWhereItRuns)
	checkDeploymentErrors(t, sharedCheck(t), "notes.sql:12:1 lint")
}
