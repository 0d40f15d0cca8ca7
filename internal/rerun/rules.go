package rerun

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/report"
	"ledgercheck/internal/rule"
)

// The ids of the rules the audits report (see the package documentation).
const (
	RuleRerunInstallFailed    = "rerun-install-failed"
	RuleRerunFixtureFailed    = "rerun-fixture-failed"
	RuleRerunFailed           = "rerun-failed"
	RuleRerunCatalogChanged   = "rerun-catalog-changed"
	RuleRerunRowsLost         = "rerun-rows-lost"
	RuleRerunRowsDuplicated   = "rerun-rows-duplicated"
	RuleRerunRowsChanged      = "rerun-rows-changed"
	RuleRerunRowsAdded        = "rerun-rows-added"
	RuleUpgradePreviousFailed = "upgrade-previous-failed"
	RuleUpgradeFixtureFailed  = "upgrade-fixture-failed"
	RuleUpgradeFailed         = "upgrade-failed"
	RuleUpgradeStaleObject    = "upgrade-stale-object"
	RuleUpgradeMissingObject  = "upgrade-missing-object"
	RuleUpgradeCatalogDiffers = "upgrade-catalog-differs"
	RuleUpgradeRowsLost       = "upgrade-rows-lost"
)

// The audits' rules in the catalog (internal/rule), for `ledgercheck explain` and SARIF.
var (
	_ = rule.Register(rule.Rule{ID: RuleRerunInstallFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the migration fails on a fresh database",
		Explain: "The migration could not be installed into a fresh scratch database with the Supabase environment and the Open Brain prerequisites, so it cannot be rerun. The finding points at the failing statement and carries the server's error."})
	_ = rule.Register(rule.Rule{ID: RuleRerunFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the fixture does not load over the migration",
		Explain: "The fixture (the project's ledger fixture unless --fixture says otherwise) failed after the install. Either the migration changed the tables the fixture writes, or the fixture needs updating; pass --fixture FILE or --no-fixture."})
	_ = rule.Register(rule.Rule{ID: RuleRerunFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the migration fails when it runs again",
		Explain: "Applying the migration a second (or later) time failed: a CREATE without IF NOT EXISTS or OR REPLACE, a CREATE POLICY or CREATE TRIGGER without a DROP ... IF EXISTS before it, an ALTER that only works once. A sidecar migration must be safe to run more than once."})
	_ = rule.Register(rule.Rule{ID: RuleRerunCatalogChanged, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again changed the catalog",
		Explain: "After a rerun the catalog differs from the catalog after the first run: an object created again under a new name (an unnamed index), dropped, or changed (a grant, a default, a function body). A rerun must leave the catalog as it was. Whitespace-only body changes are warnings."})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again lost rows",
		Explain: "After a rerun a table has fewer rows than after the first run and the fixture: a TRUNCATE, a DELETE, or a DROP TABLE and CREATE TABLE. A rerun must never lose data."})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsDuplicated, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again duplicated rows",
		Explain: "After a rerun a table has extra rows that repeat existing ones (apart from columns with defaults, such as ids and timestamps): a seed INSERT without ON CONFLICT DO NOTHING or a WHERE NOT EXISTS guard."})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsChanged, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again changed rows",
		Explain: "After a rerun some rows have different values than after the first run: an unguarded UPDATE or backfill, or rows deleted and inserted again with new ids or timestamps."})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsAdded, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again added rows",
		Explain: "After a rerun a table has new rows that do not repeat existing ones: an INSERT whose values change from run to run."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradePreviousFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the previous version fails on a fresh database",
		Explain: "The file given with --from (the previous version) could not be installed, so the upgrade cannot be checked."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the fixture does not load over the previous version",
		Explain: "The fixture failed after installing the previous version; the upgrade audit needs data written the way the previous version stored it."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the migration fails over its previous version",
		Explain: "Applying the migration over an install of the previous version (with the fixture loaded) failed. A common cause is CREATE OR REPLACE FUNCTION with a changed return type or argument names, which Postgres refuses: drop the old signature first (DROP FUNCTION IF EXISTS with its argument types)."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeStaleObject, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade left an object behind",
		Explain: "After the upgrade the database has an object a fresh install of the migration does not: an old overload (a new argument list is a new function), a renamed trigger or policy, a column the new version no longer declares. Drop it explicitly in the migration."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeMissingObject, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade lacks an object a fresh install has",
		Explain: "A fresh install of the migration has an object the upgraded database does not, usually because a guard (IF NOT EXISTS on a table whose older shape already exists) skipped it."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeCatalogDiffers, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade differs from a fresh install",
		Explain: "An object of the upgraded database differs from the same object in a fresh install: a column's type, default or position, a grant, RLS, a function body. The upgrade must produce the catalog a fresh install does."})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade lost rows",
		Explain: "After applying the migration over the previous version and the fixture, a table has fewer rows than before, or was dropped. An upgrade must keep every row; migrate the data before dropping a table."})
)

// Report returns the result as a report of its own (the rerun command's): the phases and the
// rules, with statuses derived from the findings.
func (r *Result) Report(tool, version string) *report.Report {
	rep := &report.Report{Tool: tool, Version: version, Phases: r.Phases(), Duration: r.Timings.Total}
	rep.Finish()
	return rep
}
