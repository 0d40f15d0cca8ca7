package gate

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/install"
	"ledgercheck/internal/rule"
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
