package gate

import "ledgercheck/internal/report"

// Rules describes the gate's own rule for SARIF; lint's, parity's and rerun's come from their
// packages.
func Rules() []report.RuleInfo {
	return []report.RuleInfo{
		{ID: RuleInstallFailed, Severity: report.SevError,
			Summary: "a variant does not install on a fresh Supabase-like database",
			Help: `The migration was run statement by statement, as psql -v ON_ERROR_STOP=1 -f would, on a
fresh scratch database with the Supabase environment and the Open Brain prerequisites at the
variant's dimension, and the server rejected a statement. The finding points at it and carries the
server's message, detail and hint. Nothing that needs the install (parity, probes) is checked.`},
	}
}
