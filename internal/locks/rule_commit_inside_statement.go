package locks

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleCommitInsideStatement is the id of the rule of docs/rules/commit-inside-statement.md, which this phase reports.
const RuleCommitInsideStatement = "commit-inside-statement"

var _ = rule.Register(rule.Rule{Phase: finding.PhaseLocks,
	ID: RuleCommitInsideStatement, Severity: finding.SevError,
})
