/*
 * Agent run journal
 * schemas/agent-run-journal/schema.sql
 *
 * One row per agent run (a Claude Code session, a cron'd summariser, ...), so memories can be
 * traced back to the run that wrote them via agent_memories.task_id = agent_runs.task_id.
 *
 * Requires schemas/agent-memory. Re-runnable.
 */

BEGIN;

CREATE TABLE IF NOT EXISTS public.agent_runs (
    id              UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    workspace_id    TEXT NOT NULL,
    task_id         TEXT NOT NULL,
    runtime_name    TEXT NOT NULL,
    runtime_version TEXT,
    started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at     TIMESTAMPTZ,
    outcome         TEXT CHECK (outcome IN ('succeeded', 'failed', 'abandoned')),
    memories_written INTEGER NOT NULL DEFAULT 0,
    notes           TEXT,
    UNIQUE (workspace_id, task_id)
);

CREATE INDEX IF NOT EXISTS idx_agent_runs_started ON public.agent_runs (workspace_id, started_at DESC);

ALTER TABLE public.agent_runs ENABLE ROW LEVEL SECURITY;
-- service_role bypasses RLS, so no policy is needed for the API.

GRANT SELECT, INSERT, UPDATE, DELETE ON public.agent_runs TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
