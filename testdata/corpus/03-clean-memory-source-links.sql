-- =============================================================================
-- Memory source links
-- schemas/memory-source-links/schema.sql
--
-- Outbound links (URLs, file paths, ticket ids, commits) that an agent cited when it
-- wrote an agent memory, with a fetched title and the last HTTP status, so recall can
-- show "where did this come from" without digging through metadata blobs.
--
-- Requires: Open Brain core + schemas/agent-memory.
-- Re-runnable.
-- =============================================================================

BEGIN;

DO $preflight$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.tables
                   WHERE table_schema = 'public' AND table_name = 'agent_memories') THEN
        RAISE EXCEPTION 'memory-source-links requires public.agent_memories (apply schemas/agent-memory first)';
    END IF;
END
$preflight$;

CREATE TABLE IF NOT EXISTS public.memory_source_links (
    id              UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    memory_id       UUID NOT NULL REFERENCES public.agent_memories(id) ON DELETE CASCADE,
    link_kind       TEXT NOT NULL CHECK (link_kind IN ('url', 'file', 'ticket', 'commit', 'thread')),
    target          TEXT NOT NULL,
    title           TEXT,
    last_status     INTEGER,
    last_checked_at TIMESTAMPTZ,
    metadata        JSONB NOT NULL DEFAULT '{}'::JSONB,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    UNIQUE (memory_id, link_kind, target)
);

CREATE INDEX IF NOT EXISTS idx_memory_source_links_target
    ON public.memory_source_links (link_kind, target);

ALTER TABLE public.memory_source_links ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS memory_source_links_service_role_all ON public.memory_source_links;
CREATE POLICY memory_source_links_service_role_all ON public.memory_source_links
    FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.memory_source_links TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
