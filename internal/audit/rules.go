package audit

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The audit's rules, each one of splinter's security lints (its number in the rule's page,
// docs/rules/ID.md).
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
	RuleFkeyToAuthUnique                 = "fkey-to-auth-unique"
)

// splinterRules are the audit's rules but the two definer ones (definerRules), in the order
// splinter numbers them.
var splinterRules = []rule.Rule{
	{ID: RuleAuthUsersExposed, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RulePolicyExistsRLSDisabled, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleRLSEnabledNoPolicy, Phase: finding.PhaseAudit, Severity: finding.SevInfo},
	{ID: RuleSecurityDefinerView, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleRLSDisabledInPublic, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleExtensionInPublic, Phase: finding.PhaseAudit, Severity: finding.SevWarning},
	{ID: RuleMaterializedViewInAPI, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleForeignTableInAPI, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RulePolicyAlwaysTrue, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleAPIReadsEveryRow, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleAPIWritesEveryRow, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleFkeyToAuthUnique, Phase: finding.PhaseAudit, Severity: finding.SevWarning},
}

// definerRules are splinter's 0028 and 0029, one per API role.
var definerRules = []rule.Rule{
	{ID: RuleDefinerExecutableByAnon, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleDefinerExecutableByAuthenticated, Phase: finding.PhaseAudit, Severity: finding.SevError},
}

func init() {
	for _, r := range append(splinterRules, definerRules...) {
		rule.Register(r)
	}
}
