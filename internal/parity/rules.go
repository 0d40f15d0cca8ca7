package parity

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The ids of the rules parity reports.
const (
	RuleUnreviewedDifference = "unreviewed-difference"
	RuleProbeDifference      = "probe-difference"
	RuleCosmeticDifference   = "cosmetic-difference"
	RuleStaleAllowlistEntry  = "stale-allowlist-entry"
	RuleChangedSinceReview   = "changed-since-review"
)

// The rules of parity (catalog differences, probes, the allowlist) in the catalog.
var (
	_ = rule.Register(rule.Rule{ID: RuleUnreviewedDifference, Phase: finding.PhaseParity, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleProbeDifference, Phase: finding.PhaseProbe, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleCosmeticDifference, Phase: finding.PhaseParity, Severity: finding.SevInfo})
	_ = rule.Register(rule.Rule{ID: RuleStaleAllowlistEntry, Phase: finding.PhaseAllow, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleChangedSinceReview, Phase: finding.PhaseAllow, Severity: finding.SevError})
)
