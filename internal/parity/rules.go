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

// seeAlso ends every parity rule's explain text.
const seeAlso = "\n\nRun `ledgercheck parity` for the parity report alone, and `ledgercheck allowlist suggest` for candidate allowlist entries (reason TODO until a person writes one)."

// The rules of parity (catalog differences, probes, the allowlist) in the catalog.
var (
	_ = rule.Register(rule.Rule{ID: RuleUnreviewedDifference, Phase: finding.PhaseParity, Severity: finding.SevError,
		Summary: "the artifact and the port install different schemas, and no allowlist entry accepts the difference",
		Explain: `Both variants are installed into their own scratch database and their footprints (what each
install created and changed in the catalog) compared attribute by attribute, vector dimensions
normalized. Fix the port, or add an entry to allowlist.yaml that pins the difference (kind, object,
attr, and the artifact's and the port's values, as artifact and port, or their digest) with a reason:

    - kind: table
      object: public.agent_decision_ledger
      attr: rls
      artifact: "true"
      port: "false"
      reason: "[D4] the port grants ledger_agent instead of relying on RLS; reviewed in PR #12"` + seeAlso})
	_ = rule.Register(rule.Rule{ID: RuleProbeDifference, Phase: finding.PhaseProbe, Severity: finding.SevError,
		Summary: "a probe query returns different rows on the two installs",
		Explain: `The same fixture is loaded into both installs and each probe of ledgercheck.yaml runs on both;
the results must be identical row by row. A ranking that behaves differently is caught here even
when the schemas agree. Fix the port's function (or, when the difference is intended, pin the
results with an allowlist entry of kind probe):

    - kind: probe
      object: fts-migration-runners
      attr: rows
      digest: sha256:...
      reason: "the port ranks by recency first; reviewed in PR #15"` + seeAlso})
	_ = rule.Register(rule.Rule{ID: RuleCosmeticDifference, Phase: finding.PhaseParity, Severity: finding.SevInfo,
		Summary: "a function body or definition differs in layout or comments only",
		Explain: `Reported so that a reviewer sees it; it never fails the gate. Both bodies parse to the same tree:

    RETURN QUERY SELECT id FROM t;      -- artifact
    RETURN QUERY
      SELECT id FROM t;                 -- port: the same, laid out differently` + seeAlso})
	_ = rule.Register(rule.Rule{ID: RuleStaleAllowlistEntry, Phase: finding.PhaseAllow, Severity: finding.SevError,
		Summary: "an allowlist entry accepts no difference",
		Explain: `The difference the entry accepted is gone or changed; the entry would silently accept a future,
different one. Remove it, or update its values after reviewing the new difference:

    - kind: table
      object: public.agent_decision_edges
      attr: rls
      artifact: "true"
      port: "false"       <- the port now enables RLS too: delete the entry` + seeAlso})
	_ = rule.Register(rule.Rule{ID: RuleChangedSinceReview, Phase: finding.PhaseAllow, Severity: finding.SevError,
		Summary: "a reviewed difference changed: the allowlist entry pins other values than the installs show now",
		Explain: `An allowlist entry pins a difference by its values (or their digest). When the same object's
same attribute still differs, but with other values, the review no longer holds: the finding
shows the reviewed values and the new ones (an entry pinned by digest keeps no values, so only the
new ones are shown). Review the new values, then update the entry's pin:

    ledgercheck allowlist suggest --write

rewrites the entry in place with the new values and the reason "TODO changed since review: " and
the reviewed reason; the gate rejects it until a person has checked the new values and removed the
TODO.` + seeAlso})
)
