package parity

import "ledgercheck/internal/report"

// Rules describes the findings of parity (catalog differences, probes, the allowlist) for SARIF
// and the reports of `ledgercheck check`.
func Rules() []report.RuleInfo {
	help := func(s string) string {
		return s + "\n\nRun `ledgercheck parity` for the parity report alone, and `ledgercheck allowlist suggest` for candidate allowlist entries (reason TODO until a person writes one)."
	}
	return []report.RuleInfo{
		{ID: "unreviewed-difference", Severity: report.SevError, Summary: "the artifact and the port install different schemas, and no allowlist entry accepts the difference",
			Help: help(`Both variants are installed into their own scratch database and their footprints (what each
install created and changed in the catalog) compared attribute by attribute, vector dimensions
normalized. Fix the port, or add an entry to allowlist.yaml that pins the difference (kind, object,
attr, and the left and right values or their digest) with a reason.`)},
		{ID: "probe-difference", Severity: report.SevError, Summary: "a probe query returns different rows on the two installs",
			Help: help("The same fixture is loaded into both installs and each probe of ledgercheck.yaml runs on both; the results must be identical row by row. A ranking that behaves differently is caught here even when the schemas agree.")},
		{ID: "cosmetic-difference", Severity: report.SevInfo, Summary: "a function body or definition differs in layout or comments only",
			Help: help("Reported so that a reviewer sees it; it never fails the gate.")},
		{ID: "stale-allowlist-entry", Severity: report.SevError, Summary: "an allowlist entry accepts no difference",
			Help: help("The difference the entry accepted is gone or changed; the entry would silently accept a future, different one. Remove it, or update its values after reviewing the new difference.")},
	}
}
