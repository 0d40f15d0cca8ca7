package gate

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleInstallFailed is the rule of a variant the server rejects.
const RuleInstallFailed = install.RuleInstallFailed

var _ = rule.Register(rule.Rule{ID: RuleInstallFailed, Phase: finding.PhaseInstall, Severity: finding.SevError})

// RuleResourceLimit is the rule of a statement that a resource limit of the run stopped.
const RuleResourceLimit = install.RuleResourceLimit

var _ = rule.Register(rule.Rule{ID: RuleResourceLimit, Phase: finding.PhaseInstall, Severity: finding.SevError})
