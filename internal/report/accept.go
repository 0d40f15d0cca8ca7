package report

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// acceptance says how a finding is accepted as a reviewed exception, and what to paste: the
// entry its phase offers (Finding.Accept: a parity difference's allowlist entry), or, for a rule
// that a comment suppresses (rule.Suppressible) at a position in its file, the comment to put
// on the line before the statement that holds it. ("", "") when neither accepts it: it is fixed.
func acceptance(f finding.Finding) (how, text string) {
	switch {
	case f.Accept != "":
		return "How to accept it: add this entry to the port's allowlist and replace TODO with the reason (ledgercheck allowlist suggest --write adds it)", f.Accept
	case rule.Suppressible(f.Rule) && f.Pos.Line > 0:
		return "How to accept it: put this comment on the line before the statement that holds " + f.Pos.String() + ", with the reason a reviewer reads",
			"-- ledgercheck:ignore " + f.Rule + " <why it is accepted>"
	}
	return "", ""
}
