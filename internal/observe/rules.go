package observe

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The observation's rules: what a persona was seen doing (docs/rules/ID.md each). They are
// installed-audit findings (phase audit), under the privilege models they were observed in.
const (
	RuleAnonReadsRows           = "anon-reads-rows"
	RuleAnonWritesRows          = "anon-writes-rows"
	RuleUserReadsOthersRows     = "user-reads-others-rows"
	RuleUserReadsEveryRow       = "user-reads-every-row"
	RuleUserWritesOthersRows    = "user-writes-others-rows"
	RuleUserEnrolsSelf          = "user-enrols-self"
	RuleUserPromotesSelf        = "user-promotes-self"
	RuleClientValueWidensAccess = "client-value-widens-access"
	RuleRequestSideEffect       = "request-side-effect"
	RuleOutboundRequest         = "outbound-request"
	RuleCraftedValueRunsSQL     = "crafted-value-runs-sql"
	RuleAPIRoleCanGrant         = "api-role-can-grant"
	RuleObservationIncomplete   = "observation-incomplete"
)

var rules = []rule.Rule{
	{ID: RuleAnonReadsRows, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleAnonWritesRows, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleUserReadsOthersRows, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleUserReadsEveryRow, Phase: finding.PhaseAudit, Severity: finding.SevWarning},
	{ID: RuleUserWritesOthersRows, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleUserEnrolsSelf, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleUserPromotesSelf, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleClientValueWidensAccess, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleRequestSideEffect, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleOutboundRequest, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleCraftedValueRunsSQL, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleAPIRoleCanGrant, Phase: finding.PhaseAudit, Severity: finding.SevError},
	{ID: RuleObservationIncomplete, Phase: finding.PhaseAudit, Severity: finding.SevError},
}

func init() {
	for _, r := range rules {
		rule.Register(r)
	}
}

// severity is rule id's default severity in the catalog.
func severity(id string) finding.Severity {
	r, _ := rule.Registered(id)
	return r.Severity
}
