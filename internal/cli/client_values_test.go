package cli

import (
	"slices"
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
