package bodies

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// severity is rule id's default severity (lint.severity may change it: [configured]).
func severity(id string) finding.Severity {
	r, _ := rule.Registered(id)
	return r.Severity
}
