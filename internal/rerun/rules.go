package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
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
		Explain: `The migration could not be installed into a fresh scratch database with the Supabase environment
and the Open Brain prerequisites, so it cannot be rerun. The finding points at the failing
statement and carries the server's error.

    CREATE TABLE public.agent_decision_notes (memory_id uuid REFERENCES public.agent_decisions);
    -- ERROR: relation "public.agent_decisions" does not exist

becomes, naming the table the prerequisites or the file create,

    CREATE TABLE IF NOT EXISTS public.agent_decision_notes (
      memory_id uuid REFERENCES public.agent_decision_ledger (memory_id));`})
	_ = rule.Register(rule.Rule{ID: RuleRerunFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the fixture does not load over the migration",
		Explain: `The fixture (the project's ledger fixture unless --fixture says otherwise) failed after the
install. Either the migration changed the tables the fixture writes, or the fixture needs
updating; pass --fixture FILE or --no-fixture.

    ALTER TABLE public.agent_decision_ledger RENAME COLUMN step_index TO step;
    -- the fixture's INSERT ... (step_index) now fails

becomes a migration that keeps the column the fixture (and the data already there) uses, or a
fixture updated in the same change.`})
	_ = rule.Register(rule.Rule{ID: RuleRerunFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the migration fails when it runs again",
		Explain: `Applying the migration a second (or later) time failed: a CREATE without IF NOT EXISTS or OR
REPLACE, a CREATE POLICY or CREATE TRIGGER without a DROP ... IF EXISTS before it, an ALTER that
only works once. A sidecar migration must be safe to run more than once.

    CREATE POLICY ledger_all ON public.agent_decision_ledger FOR ALL TO service_role USING (true);
    -- second run: ERROR: policy "ledger_all" for table "agent_decision_ledger" already exists

becomes

    DROP POLICY IF EXISTS ledger_all ON public.agent_decision_ledger;
    CREATE POLICY ledger_all ON public.agent_decision_ledger FOR ALL TO service_role USING (true);`})
	_ = rule.Register(rule.Rule{ID: RuleRerunCatalogChanged, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again changed the catalog",
		Explain: `After a rerun the catalog differs from the catalog after the first run: an object created again
under a new name (an unnamed index), dropped, or changed (a grant, a default, a function body).
A rerun must leave the catalog as it was. Whitespace-only body changes are warnings.

    CREATE INDEX ON public.agent_decision_ledger (workspace_id);   -- a new index every run

becomes

    CREATE INDEX IF NOT EXISTS agent_decision_ledger_workspace_idx
      ON public.agent_decision_ledger (workspace_id);`})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again lost rows",
		Explain: `After a rerun a table has fewer rows than after the first run and the fixture: a TRUNCATE, a
DELETE, or a DROP TABLE and CREATE TABLE. A rerun must never lose data.

    TRUNCATE public.agent_decision_edges;
    INSERT INTO public.agent_decision_edges SELECT ...;

becomes an upsert that keeps what is there:

    INSERT INTO public.agent_decision_edges SELECT ... ON CONFLICT DO NOTHING;`})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsDuplicated, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again duplicated rows",
		Explain: `After a rerun a table has extra rows that repeat existing ones (apart from columns with
defaults, such as ids and timestamps): a seed INSERT without ON CONFLICT DO NOTHING or a WHERE
NOT EXISTS guard.

    INSERT INTO public.agent_recall_policies (name, weight) VALUES ('default', 1.0);

becomes

    INSERT INTO public.agent_recall_policies (name, weight) VALUES ('default', 1.0)
    ON CONFLICT (name) DO NOTHING;`})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsChanged, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again changed rows",
		Explain: `After a rerun some rows have different values than after the first run: an unguarded UPDATE or
backfill, or rows deleted and inserted again with new ids or timestamps.

    UPDATE public.agent_decision_ledger SET updated_at = now();

becomes a backfill that touches only the rows that need it:

    UPDATE public.agent_decision_ledger SET search_document = to_tsvector('simple', rationale)
    WHERE search_document IS NULL;`})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsAdded, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "running the migration again added rows",
		Explain: `After a rerun a table has new rows that do not repeat existing ones: an INSERT whose values
change from run to run.

    INSERT INTO public.agent_decision_events (kind, at) VALUES ('installed', now());

becomes a row whose key does not change from run to run:

    INSERT INTO public.agent_decision_events (kind, at) VALUES ('installed', '2026-01-01')
    ON CONFLICT (kind) DO NOTHING;`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradePreviousFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the previous version fails on a fresh database",
		Explain: `The file given with --from (the previous version) could not be installed, so the upgrade cannot
be checked.

    ledgercheck rerun migrations/decision_ledger.sql --from old.sql   -- old.sql does not install

becomes a --from (or artifact.previous) that names the version actually deployed, such as
testdata/fixtures/first_cut.sql for the decision ledger.`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the fixture does not load over the previous version",
		Explain: `The fixture failed after installing the previous version; the upgrade audit needs data written
the way the previous version stored it.

    INSERT INTO public.agent_decision_pins (memory_id) ...   -- a table the previous version lacks

becomes a fixture that writes only what every version it is loaded over has (the ledger's
fixture writes through agent_memories, which enrolls the decisions).`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFailed, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the migration fails over its previous version",
		Explain: `Applying the migration over an install of the previous version (with the fixture loaded) failed.
A common cause is CREATE OR REPLACE FUNCTION with a changed return type or argument names, which
Postgres refuses: drop the old signature first (DROP FUNCTION IF EXISTS with its argument
types).

    CREATE OR REPLACE FUNCTION public.match_decision_ledger(p_workspace text, ...)
      RETURNS TABLE (memory_id uuid, ranking_score double precision, pinned boolean) ...
    -- ERROR: cannot change return type of existing function

becomes

    DROP FUNCTION IF EXISTS public.match_decision_ledger(text, ...);
    CREATE FUNCTION public.match_decision_ledger(p_workspace text, ...)
      RETURNS TABLE (memory_id uuid, ranking_score double precision, pinned boolean) ...`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeStaleObject, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade left an object behind",
		Explain: `After the upgrade the database has an object a fresh install of the migration does not: an old
overload (a new argument list is a new function), a renamed trigger or policy, a column the new
version no longer declares. Drop it explicitly in the migration.

    CREATE OR REPLACE FUNCTION public.touch_decision_recall(p_ids uuid[], p_hit boolean) ...
    -- the previous touch_decision_recall(uuid[]) stays beside it

becomes

    DROP FUNCTION IF EXISTS public.touch_decision_recall(uuid[]);
    CREATE OR REPLACE FUNCTION public.touch_decision_recall(p_ids uuid[], p_hit boolean) ...`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeMissingObject, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade lacks an object a fresh install has",
		Explain: `A fresh install of the migration has an object the upgraded database does not, usually because a
guard (IF NOT EXISTS on a table whose older shape already exists) skipped it.

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (..., weight real);
    -- skipped over the previous version's table, which has no weight column

becomes

    CREATE TABLE IF NOT EXISTS public.agent_decision_edges (...);
    ALTER TABLE public.agent_decision_edges ADD COLUMN IF NOT EXISTS weight real;`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeCatalogDiffers, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade differs from a fresh install",
		Explain: `An object of the upgraded database differs from the same object in a fresh install: a column's
type, default or position, a grant, RLS, a function body. The upgrade must produce the catalog a
fresh install does.

    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (..., importance numeric(3,2));
    -- the previous version's column is numeric(2,1), and stays so

becomes

    ALTER TABLE public.agent_decision_ledger ALTER COLUMN importance TYPE numeric(3,2);`})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError,
		Summary: "the upgrade lost rows",
		Explain: `After applying the migration over the previous version and the fixture, a table has fewer rows
than before, or was dropped. An upgrade must keep every row; migrate the data before dropping a
table.

    DROP TABLE IF EXISTS public.agent_decision_ledger;
    CREATE TABLE public.agent_decision_ledger (...);

becomes a migration of the table in place:

    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (...);
    ALTER TABLE public.agent_decision_ledger ADD COLUMN IF NOT EXISTS search_document tsvector;`})
)
