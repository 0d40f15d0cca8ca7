package gate

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// RuleInstallFailed is the rule of a variant the server rejects.
const RuleInstallFailed = install.RuleInstallFailed

var _ = rule.Register(rule.Rule{ID: RuleInstallFailed, Phase: finding.PhaseInstall, Severity: finding.SevError,
	Summary: "a variant does not install on a fresh Supabase-like database",
	Explain: `The migration was run statement by statement, as psql -v ON_ERROR_STOP=1 -f would, on a
fresh scratch database with the Supabase environment and the Open Brain prerequisites at the
variant's dimension, and the server rejected a statement. The finding points at it and carries the
server's message, detail and hint. Nothing that needs the install (parity, probes) is checked.

What the migration does to its own environment is the same finding at the statement that did it:
running past the install time limit (--install-timeout), or changing the role it runs as or one
of the run's databases so that later sessions cannot connect or work (its password, a connection
limit, ALLOW_CONNECTIONS false, a revoked CONNECT, a local_preload_libraries that does not load,
a role or default_transaction_read_only setting). ledgercheck puts the role and databases back,
and the message says what changed. On Supabase the same statement would lock the project's own
sessions out.

    CREATE INDEX ON public.agent_decision_ledger USING hnsw (embedding vector_l2_ops);
    -- ERROR: column "embedding" does not exist

becomes, with the column the index needs created first,

    ALTER TABLE public.agent_decision_ledger ADD COLUMN IF NOT EXISTS embedding extensions.vector(1536);
    CREATE INDEX IF NOT EXISTS agent_decision_ledger_embedding_idx
      ON public.agent_decision_ledger USING hnsw (embedding extensions.vector_l2_ops);`})

// RuleResourceLimit is the rule of a statement that a resource limit of the run stopped.
const RuleResourceLimit = install.RuleResourceLimit

var _ = rule.Register(rule.Rule{ID: RuleResourceLimit, Phase: finding.PhaseInstall, Severity: finding.SevError,
	Summary: "a statement exceeds a resource limit of the run (scratch directory, server memory, or what ledgercheck reads)",
	Explain: `Every run bounds what user SQL may take: the embedded cluster's directory (limits.scratch_size,
--scratch-size, default 1 GiB: every file, temporary files included, and the whole directory,
which a watchdog measures), the memory of each server process (limits.server_memory,
--server-memory, default 1 GiB), and the largest message ledgercheck reads from the server
(limits.read_size, --read-size, default 64 MiB: a catalog query's result, such as every function
body of the database, or a row a statement returns; also what the rerun audit keeps of a table
digest). The statement that was running when a limit was reached was stopped, and the finding
points at it; a catalog or a digest too large to read is reported at the file's last statement.
Nothing that needs the install is checked.

    INSERT INTO public.agent_decision_ledger (summary)
    SELECT repeat('x', 1000) FROM generate_series(1, 10000000);
    -- the scratch cluster's directory grew past the run's limit of 1 GiB

becomes a migration that does not load bulk data, or, if the data is the point, a larger
limit for the run (limits: scratch_size: 4GiB).`})
