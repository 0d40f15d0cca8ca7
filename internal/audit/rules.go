package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The audit's rules, each one of splinter's security lints (its number in the summary).
const (
	RuleAuthUsersExposed                 = "auth-users-exposed"
	RulePolicyExistsRLSDisabled          = "policy-exists-rls-disabled"
	RuleRLSEnabledNoPolicy               = "rls-enabled-no-policy"
	RuleSecurityDefinerView              = "security-definer-view"
	RuleRLSDisabledInPublic              = "rls-disabled-in-public"
	RuleExtensionInPublic                = "extension-in-public"
	RuleMaterializedViewInAPI            = "materialized-view-in-api"
	RuleForeignTableInAPI                = "foreign-table-in-api"
	RulePolicyAlwaysTrue                 = "policy-always-true"
	RuleDefinerExecutableByAnon          = "definer-executable-by-anon"
	RuleDefinerExecutableByAuthenticated = "definer-executable-by-authenticated"
	RuleAPIReadsEveryRow                 = "api-reads-every-row"
	RuleAPIWritesEveryRow                = "api-writes-every-row"
)

// scopeNote is the part every explain text shares.
const scopeNote = `

The installed audit runs after the file is installed (ledgercheck check, ledgercheck lint
--install) and asks the catalog, for every object the file created or changed, what anon and
authenticated can really do: has_table_privilege and has_function_privilege answer through
PUBLIC, memberships and default privileges. The schemas the Data API serves are lint.exposed_schemas
(default public). A fact lint already reported from the SQL is not reported again. It answers for
both kinds of project a sidecar is installed into: a hosted one, whose new tables get no privileges
for the API roles, and a self-hosted one, whose old default privileges grant ALL on new tables,
sequences and functions in public to anon, authenticated and service_role (the file is installed
a second time for it); a finding that holds in one kind only says which, and
lint.privilege_models (new-defaults, old-defaults) restricts the audit to a project's own.`

// splinterRules are the audit's rules but the two definer ones (definerRules), in the order
// splinter numbers them.
var splinterRules = []rule.Rule{
	{ID: RuleAuthUsersExposed, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a view in an exposed schema reads auth.users and an API role can select it (splinter 0002)",
		Explain: `A view (or materialized view) in public that depends on auth.users, selectable by anon or
authenticated, hands every user's email and metadata to whoever calls the Data API: the view reads
auth.users with its owner's rights. Splinter's 0002 auth_users_exposed.

    CREATE VIEW public.workspace_directory AS
      SELECT m.workspace_id, u.email FROM public.workspace_members m JOIN auth.users u ON u.id = m.user_id;
    GRANT SELECT ON public.workspace_directory TO authenticated;

becomes a column of the file's own table, filled by the backend, behind row level security:

    ALTER TABLE public.workspace_members ADD COLUMN IF NOT EXISTS display_email text;
    -- no view over auth.users; policies on workspace_members decide who reads what` + scopeNote},
	{ID: RulePolicyExistsRLSDisabled, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a table with policies whose row level security is off (splinter 0007)",
		Explain: `Policies do nothing until row level security is enabled on their table. Splinter's 0007
policy_exists_rls_disabled; lint's table-rls-disabled reports the same fact when the SQL shows it,
the audit when only the install does (RLS enabled by a DO loop that missed the table).

    CREATE POLICY reminder_deliveries_service_role_all ON public.reminder_deliveries ...;

becomes

    ALTER TABLE public.reminder_deliveries ENABLE ROW LEVEL SECURITY;
    CREATE POLICY reminder_deliveries_service_role_all ON public.reminder_deliveries ...;` + scopeNote},
	{ID: RuleRLSEnabledNoPolicy, Phase: finding.PhaseAudit, Severity: finding.SevInfo,
		Summary: "row level security on and no policy (splinter 0008)",
		Explain: `A table with row level security and no policy denies every Data API request but
service_role's (which bypasses RLS). Often an oversight; the sidecar pattern states the intended
access with a service_role policy. Splinter's 0008 rls_enabled_no_policy (info); lint's
table-no-service-role-policy reports it when the SQL shows the table.

    ALTER TABLE public.thought_chunks ENABLE ROW LEVEL SECURITY;

becomes

    ALTER TABLE public.thought_chunks ENABLE ROW LEVEL SECURITY;
    CREATE POLICY thought_chunks_service_role_all ON public.thought_chunks
      FOR ALL TO service_role USING (true) WITH CHECK (true);` + scopeNote},
	{ID: RuleSecurityDefinerView, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a view without security_invoker that an API role can select (splinter 0010)",
		Explain: `A view runs with its owner's rights unless it has security_invoker = true: granted to anon
or authenticated, it reads the tables under it past their row level security. Splinter's 0010
security_definer_view.

    CREATE VIEW public.public_feed AS SELECT id, content FROM public.thoughts;
    GRANT SELECT ON public.public_feed TO anon;

becomes

    CREATE VIEW public.public_feed WITH (security_invoker = true) AS SELECT id, content FROM public.thoughts;` + scopeNote},
	{ID: RuleRLSDisabledInPublic, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a table in an exposed schema without row level security that an API role can select (splinter 0013)",
		Explain: `A table in a schema the Data API serves, without row level security, is readable and writable
by any role with a grant: when anon or authenticated can select it, they read every row.
Splinter's 0013 rls_disabled_in_public. lint's table-rls-disabled reports the missing row level
security when the SQL shows it (and then this is not reported again), the audit when only the
install does. A reviewed suppression of table-rls-disabled accepts a table without row level
security, not anon reading every row of it: that exposure is reported on its own, and accepting it
takes its own "-- ledgercheck:ignore rls-disabled-in-public <reason>".

    CREATE TABLE public.reminder_deliveries (...);

becomes

    CREATE TABLE public.reminder_deliveries (...);
    ALTER TABLE public.reminder_deliveries ENABLE ROW LEVEL SECURITY;` + scopeNote},
	{ID: RuleExtensionInPublic, Phase: finding.PhaseAudit, Severity: finding.SevWarning,
		Summary: "an extension installed in schema public (splinter 0014)",
		Explain: `CREATE EXTENSION without WITH SCHEMA installs into the first schema of the search_path,
public, which the Data API exposes: the extension's functions become RPC endpoints. Splinter's
0014 extension_in_public.

    CREATE EXTENSION IF NOT EXISTS pg_trgm;

becomes

    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA extensions;` + scopeNote},
	{ID: RuleMaterializedViewInAPI, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a materialized view an API role can select (splinter 0016)",
		Explain: `A materialized view has no row level security: granted to anon or authenticated, every row
of it is readable through the Data API. Splinter's 0016 materialized_view_in_api.

    CREATE MATERIALIZED VIEW public.topic_counts AS SELECT ... FROM public.thoughts ...;
    GRANT SELECT ON public.topic_counts TO anon;

becomes

    CREATE MATERIALIZED VIEW public.topic_counts AS ...;
    GRANT SELECT ON public.topic_counts TO service_role;` + scopeNote},
	{ID: RuleForeignTableInAPI, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a foreign table an API role can select (splinter 0017)",
		Explain: `A foreign table has no row level security: granted to anon or authenticated, every row the
remote server returns is readable through the Data API. Splinter's 0017 foreign_table_in_api.

    CREATE FOREIGN TABLE public.archived_thoughts (...) SERVER archive;
    GRANT SELECT ON public.archived_thoughts TO authenticated;

becomes a foreign table in a schema the API does not serve, read by service_role:

    CREATE FOREIGN TABLE archive.archived_thoughts (...) SERVER archive;
    GRANT SELECT ON archive.archived_thoughts TO service_role;` + scopeNote},
	{ID: RulePolicyAlwaysTrue, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "a write policy for anon, authenticated or PUBLIC that lets every row through (splinter 0024)",
		Explain: `A permissive policy for anon, authenticated or PUBLIC whose USING is true (or absent) on
UPDATE, DELETE or ALL, or whose WITH CHECK is true (or absent on INSERT), lets any caller write
or delete any row: RLS is on, and protects nothing. SELECT with USING (true) is public read and is
not reported. Splinter's 0024 rls_policy_always_true.

    CREATE POLICY inbox_delete ON public.capture_inbox FOR DELETE TO anon USING (true);

becomes

    CREATE POLICY inbox_delete ON public.capture_inbox FOR DELETE TO authenticated
      USING (auth.uid() = owner_id);` + scopeNote},
	{ID: RuleAPIReadsEveryRow, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "anon or authenticated can read every row of a table through a policy that is always true for it",
		Explain: `Row level security is on, and a policy lets anon or authenticated read every row anyway: its
USING is true (or absent), or a condition every request of that role meets, such as
auth.role() = 'authenticated' or auth.uid() IS NOT NULL for authenticated (every signed-in user
of the project, not the row's owner). A grant to authenticated accepted in lint.allowed_grantees
accepts the grant, not every-row access: the finding names the policy that opens the table.
Splinter's 0024 leaves SELECT with USING (true) out as "public read"; a sidecar's private rows
are not public read, so ledgercheck reports it. Accept a table meant to be world-readable with
"-- ledgercheck:ignore api-reads-every-row <reason>" at its CREATE TABLE.

    CREATE POLICY "Users manage their own notes" ON public.notes FOR ALL
      USING (auth.role() = 'authenticated');

becomes

    CREATE POLICY notes_owner_all ON public.notes FOR ALL TO authenticated
      USING (auth.uid() = owner_id) WITH CHECK (auth.uid() = owner_id);` + scopeNote},
	{ID: RuleAPIWritesEveryRow, Phase: finding.PhaseAudit, Severity: finding.SevError,
		Summary: "anon or authenticated can write every row of a table through a policy that is always true for it",
		Explain: `A policy lets anon or authenticated insert, update or delete every row of a table through a
condition every request of that role meets (auth.role() = 'authenticated', auth.uid() IS NOT
NULL): every signed-in user can change every user's rows. A policy whose condition is literally
true is policy-always-true (splinter 0024) and is not reported twice. Accept it with
"-- ledgercheck:ignore api-writes-every-row <reason>" at the CREATE TABLE.

    CREATE POLICY notes_write ON public.notes FOR UPDATE TO authenticated
      USING (auth.uid() IS NOT NULL);

becomes

    CREATE POLICY notes_write ON public.notes FOR UPDATE TO authenticated
      USING (auth.uid() = owner_id) WITH CHECK (auth.uid() = owner_id);` + scopeNote},
}

// definerRules are splinter's 0028 and 0029, one per API role.
func definerRules() []rule.Rule {
	var out []rule.Rule
	for _, role := range []string{"anon", "authenticated"} {
		id, n := RuleDefinerExecutableByAnon, "0028"
		if role == "authenticated" {
			id, n = RuleDefinerExecutableByAuthenticated, "0029"
		}
		out = append(out, rule.Rule{ID: id, Phase: finding.PhaseAudit, Severity: finding.SevError,
			Summary: "a SECURITY DEFINER function " + role + " can execute, installed (splinter " + n + ")",
			Explain: `A SECURITY DEFINER function that ` + role + ` can EXECUTE is callable through the Data API
(/rest/v1/rpc/NAME) with its owner's rights, past row level security. lint's
security-definer-public-execute reports it from the SQL; the audit asks the catalog, which also
sees functions created by SQL built at run time. Trigger functions are left out: they cannot be
called directly. A function ` + role + ` is meant to call is a reviewed exception
(lint.definer_callers in ledgercheck.yaml). Splinter's ` + n + `.

    REVOKE EXECUTE ON FUNCTION public.match_thought_chunks(extensions.vector, integer) FROM PUBLIC;

becomes

    REVOKE EXECUTE ON FUNCTION public.match_thought_chunks(extensions.vector, integer) FROM PUBLIC, anon, authenticated;` + scopeNote})
	}
	return out
}

func init() {
	for _, r := range append(splinterRules, definerRules()...) {
		rule.Register(r)
	}
}
