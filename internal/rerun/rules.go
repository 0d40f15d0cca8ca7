package rerun

import (
	"ledgercheck/internal/report"
)

// rules describes every rule the audits report, for formats that carry rule metadata (SARIF)
// and for `ledgercheck explain`.
var rules = []report.RuleInfo{
	{ID: "rerun-install-failed", Severity: report.SevError,
		Summary: "the migration fails on a fresh database",
		Help:    "The migration could not be installed into a fresh scratch database with the Supabase environment and the Open Brain prerequisites, so it cannot be rerun. The finding points at the failing statement and carries the server's error."},
	{ID: "rerun-fixture-failed", Severity: report.SevError,
		Summary: "the fixture does not load over the migration",
		Help:    "The fixture (the project's ledger fixture unless --fixture says otherwise) failed after the install. Either the migration changed the tables the fixture writes, or the fixture needs updating; pass --fixture FILE or --no-fixture."},
	{ID: "rerun-failed", Severity: report.SevError,
		Summary: "the migration fails when it runs again",
		Help:    "Applying the migration a second (or later) time failed: a CREATE without IF NOT EXISTS or OR REPLACE, a CREATE POLICY or CREATE TRIGGER without a DROP ... IF EXISTS before it, an ALTER that only works once. A sidecar migration must be safe to run more than once."},
	{ID: "rerun-catalog-changed", Severity: report.SevError,
		Summary: "running the migration again changed the catalog",
		Help:    "After a rerun the catalog differs from the catalog after the first run: an object created again under a new name (an unnamed index), dropped, or changed (a grant, a default, a function body). A rerun must leave the catalog as it was. Whitespace-only body changes are warnings."},
	{ID: "rerun-rows-lost", Severity: report.SevError,
		Summary: "running the migration again lost rows",
		Help:    "After a rerun a table has fewer rows than after the first run and the fixture: a TRUNCATE, a DELETE, or a DROP TABLE and CREATE TABLE. A rerun must never lose data."},
	{ID: "rerun-rows-duplicated", Severity: report.SevError,
		Summary: "running the migration again duplicated rows",
		Help:    "After a rerun a table has extra rows that repeat existing ones (apart from columns with defaults, such as ids and timestamps): a seed INSERT without ON CONFLICT DO NOTHING or a WHERE NOT EXISTS guard."},
	{ID: "rerun-rows-changed", Severity: report.SevError,
		Summary: "running the migration again changed rows",
		Help:    "After a rerun some rows have different values than after the first run: an unguarded UPDATE or backfill, or rows deleted and inserted again with new ids or timestamps."},
	{ID: "rerun-rows-added", Severity: report.SevError,
		Summary: "running the migration again added rows",
		Help:    "After a rerun a table has new rows that do not repeat existing ones: an INSERT whose values change from run to run."},
	{ID: "upgrade-previous-failed", Severity: report.SevError,
		Summary: "the previous version fails on a fresh database",
		Help:    "The file given with --from (the previous version) could not be installed, so the upgrade cannot be checked."},
	{ID: "upgrade-fixture-failed", Severity: report.SevError,
		Summary: "the fixture does not load over the previous version",
		Help:    "The fixture failed after installing the previous version; the upgrade audit needs data written the way the previous version stored it."},
	{ID: "upgrade-failed", Severity: report.SevError,
		Summary: "the migration fails over its previous version",
		Help:    "Applying the migration over an install of the previous version (with the fixture loaded) failed. A common cause is CREATE OR REPLACE FUNCTION with a changed return type or argument names, which Postgres refuses: drop the old signature first (DROP FUNCTION IF EXISTS with its argument types)."},
	{ID: "upgrade-stale-object", Severity: report.SevError,
		Summary: "the upgrade left an object behind",
		Help:    "After the upgrade the database has an object a fresh install of the migration does not: an old overload (a new argument list is a new function), a renamed trigger or policy, a column the new version no longer declares. Drop it explicitly in the migration."},
	{ID: "upgrade-missing-object", Severity: report.SevError,
		Summary: "the upgrade lacks an object a fresh install has",
		Help:    "A fresh install of the migration has an object the upgraded database does not, usually because a guard (IF NOT EXISTS on a table whose older shape already exists) skipped it."},
	{ID: "upgrade-catalog-differs", Severity: report.SevError,
		Summary: "the upgrade differs from a fresh install",
		Help:    "An object of the upgraded database differs from the same object in a fresh install: a column's type, default or position, a grant, RLS, a function body. The upgrade must produce the catalog a fresh install does."},
	{ID: "upgrade-rows-lost", Severity: report.SevError,
		Summary: "the upgrade lost rows",
		Help:    "After applying the migration over the previous version and the fixture, a table has fewer rows than before, or was dropped. An upgrade must keep every row; migrate the data before dropping a table."},
}

// Rules returns the metadata of every rule the audits report.
func Rules() []report.RuleInfo { return append([]report.RuleInfo(nil), rules...) }

// Report returns the result as a report of its own (the rerun command's): the phases and the
// rules, with statuses derived from the findings.
func (r *Result) Report(tool, version string) *report.Report {
	rep := &report.Report{Tool: tool, Version: version, Phases: r.Phases(), Duration: r.Timings.Total, Rules: Rules()}
	rep.Finish()
	return rep
}
