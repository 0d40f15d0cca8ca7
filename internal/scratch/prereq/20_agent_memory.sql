-- Open Brain agent-memory schema: agent_memories and its seven sidecar tables.
--
-- Prerequisite of the decision ledger. Written from the facts in
-- the Open Brain repository (OB1 schemas/agent-memory/schema.sql); no upstream SQL is
-- reproduced. Installed by ledgercheck as role postgres after 10_openbrain_core.sql; by hand:
--   psql -v dim=1536 -v ON_ERROR_STOP=1 -f migrations/prereq/20_agent_memory.sql
-- (this file has no dimension-dependent part; the variable is accepted and unused).
--
-- Shape, as upstream: one transaction, a preflight that refuses to run without public.thoughts,
-- every CREATE guarded by IF NOT EXISTS, policies and triggers dropped IF EXISTS and recreated,
-- every object schema-qualified. Re-runnable.

BEGIN;

-- information_schema.tables lists only tables the current role owns or holds a privilege on, so
-- this also fails when the installing role cannot see thoughts at all.
DO $preflight$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name = 'thoughts'
  ) THEN
    RAISE EXCEPTION 'agent-memory needs public.thoughts: run the Open Brain getting-started guide (core capture path) first';
  END IF;
END
$preflight$;

-- 2.2: the memory rows themselves.
CREATE TABLE IF NOT EXISTS public.agent_memories (
  id                         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id                 uuid REFERENCES public.thoughts (id) ON DELETE SET NULL,
  workspace_id               text NOT NULL,
  project_id                 text,
  channel_kind               text,
  channel_id                 text,
  channel_thread_id          text,
  visibility                 text NOT NULL DEFAULT 'project'
    CHECK (visibility IN ('personal', 'channel', 'project', 'workspace', 'organization')),
  memory_type                text NOT NULL
    CHECK (memory_type IN ('decision', 'output', 'lesson', 'constraint', 'open_question',
                           'failure', 'artifact_reference', 'work_log')),
  summary                    text NOT NULL,
  content                    text NOT NULL,
  lifecycle_status           text NOT NULL DEFAULT 'active'
    CHECK (lifecycle_status IN ('active', 'stale', 'superseded', 'disputed', 'rejected')),
  provenance_status          text NOT NULL DEFAULT 'generated'
    CHECK (provenance_status IN ('observed', 'inferred', 'user_confirmed', 'imported',
                                 'generated', 'superseded', 'disputed')),
  confidence                 numeric(3,2) NOT NULL DEFAULT 0.50
    CHECK (confidence >= 0 AND confidence <= 1),
  created_by                 text NOT NULL DEFAULT 'agent'
    CHECK (created_by IN ('user', 'agent', 'system', 'import')),
  runtime_name               text,
  runtime_version            text,
  provider                   text,
  model                      text,
  task_id                    text,
  flow_id                    text,
  can_use_as_instruction     boolean NOT NULL DEFAULT false,
  can_use_as_evidence        boolean NOT NULL DEFAULT true,
  requires_user_confirmation boolean NOT NULL DEFAULT true,
  review_status              text NOT NULL DEFAULT 'pending'
    CHECK (review_status IN ('pending', 'confirmed', 'evidence_only', 'restricted', 'rejected',
                             'stale', 'merged')),
  last_confirmed_at          timestamptz,
  stale_after                timestamptz,
  idempotency_key            text,
  content_hash               text,
  metadata                   jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  -- Instruction-grade memory needs confirmed or imported provenance.
  CHECK (NOT can_use_as_instruction OR provenance_status IN ('user_confirmed', 'imported'))
);

CREATE UNIQUE INDEX IF NOT EXISTS idx_agent_memories_idempotency_key
  ON public.agent_memories (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_agent_memories_scope
  ON public.agent_memories (workspace_id, project_id, visibility);
CREATE INDEX IF NOT EXISTS idx_agent_memories_review
  ON public.agent_memories (review_status, lifecycle_status, created_at DESC);
CREATE INDEX IF NOT EXISTS idx_agent_memories_runtime_task
  ON public.agent_memories (runtime_name, task_id, flow_id);
CREATE INDEX IF NOT EXISTS idx_agent_memories_content_hash
  ON public.agent_memories (workspace_id, content_hash) WHERE content_hash IS NOT NULL;

-- 2.3: sidecar tables.
CREATE TABLE IF NOT EXISTS public.agent_memory_source_refs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id        uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  source_kind      text NOT NULL,
  uri              text,
  title            text,
  source_timestamp timestamptz,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_source_refs_memory
  ON public.agent_memory_source_refs (memory_id);

CREATE TABLE IF NOT EXISTS public.agent_memory_artifacts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id     uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  artifact_kind text NOT NULL,
  uri           text NOT NULL,
  description   text,
  metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_artifacts_memory
  ON public.agent_memory_artifacts (memory_id);

CREATE TABLE IF NOT EXISTS public.agent_memory_relations (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  from_memory_id uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  to_memory_id   uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  relation       text NOT NULL
    CHECK (relation IN ('related_to', 'supersedes', 'superseded_by', 'conflicts_with', 'merged_into')),
  confidence     numeric(3,2) DEFAULT 0.50
    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_memory_id, to_memory_id, relation),
  CHECK (from_memory_id <> to_memory_id)
);

CREATE TABLE IF NOT EXISTS public.agent_memory_review_actions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id   uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  action      text NOT NULL
    CHECK (action IN ('confirm', 'edit', 'evidence_only', 'restrict_scope', 'mark_stale', 'merge',
                      'reject', 'dispute', 'supersede')),
  actor_id    text,
  actor_label text,
  notes       text,
  before      jsonb,
  after       jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_review_actions_memory
  ON public.agent_memory_review_actions (memory_id, created_at DESC);

CREATE TABLE IF NOT EXISTS public.agent_memory_recall_traces (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  request_id      uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  workspace_id    text NOT NULL,
  project_id      text,
  runtime_name    text,
  runtime_version text,
  task_id         text,
  flow_id         text,
  channel_kind    text,
  channel_id      text,
  query           text NOT NULL,
  schema_version  text NOT NULL,
  request_payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  response_policy jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_recall_traces_scope
  ON public.agent_memory_recall_traces (workspace_id, project_id, created_at DESC);

CREATE TABLE IF NOT EXISTS public.agent_memory_recall_items (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  trace_id            uuid NOT NULL REFERENCES public.agent_memory_recall_traces (id) ON DELETE CASCADE,
  memory_id           uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  rank                integer NOT NULL,
  similarity          numeric(5,4),
  ranking_score       numeric(7,4),
  returned            boolean NOT NULL DEFAULT true,
  used                boolean, -- NULL: no usage feedback yet
  ignored_reason      text,
  use_policy_snapshot jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (trace_id, memory_id)
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_recall_items_trace
  ON public.agent_memory_recall_items (trace_id, rank);

CREATE TABLE IF NOT EXISTS public.agent_memory_audit_events (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_type   text NOT NULL
    CHECK (event_type IN ('recall_requested', 'memory_returned', 'memory_used', 'memory_ignored',
                          'memory_written', 'memory_confirmed', 'memory_edited', 'memory_rejected',
                          'memory_superseded', 'memory_disputed')),
  workspace_id text,
  project_id   text,
  memory_id    uuid REFERENCES public.agent_memories (id) ON DELETE SET NULL,
  trace_id     uuid REFERENCES public.agent_memory_recall_traces (id) ON DELETE SET NULL,
  actor_kind   text NOT NULL DEFAULT 'system'
    CHECK (actor_kind IN ('user', 'agent', 'system', 'import')),
  actor_label  text,
  runtime_name text,
  task_id      text,
  payload      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_agent_memory_audit_scope
  ON public.agent_memory_audit_events (workspace_id, project_id, created_at DESC);

-- 2.4: functions and triggers.
CREATE OR REPLACE FUNCTION public.agent_memories_set_updated_at()
RETURNS trigger
LANGUAGE plpgsql
AS $fn$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$fn$;

DROP TRIGGER IF EXISTS trg_agent_memories_updated_at ON public.agent_memories;
CREATE TRIGGER trg_agent_memories_updated_at
  BEFORE UPDATE ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_memories_set_updated_at();

-- Same normalisation as the thoughts fingerprint; NULL hashes as the empty string. (The API
-- computes content_hash itself, without normalisation; upstream ships this helper regardless.)
CREATE OR REPLACE FUNCTION public.agent_memory_hash_text(p_content text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
AS $fn$
BEGIN
  RETURN encode(
    sha256(convert_to(lower(btrim(regexp_replace(coalesce(p_content, ''), '\s+', ' ', 'g'))), 'UTF8')),
    'hex');
END;
$fn$;

-- 2.5: RLS on all eight tables, one service_role policy each, explicit grants.
ALTER TABLE public.agent_memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_source_refs ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_artifacts ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_relations ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_review_actions ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_recall_traces ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_recall_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_audit_events ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS agent_memories_service_role_all ON public.agent_memories;
CREATE POLICY agent_memories_service_role_all ON public.agent_memories
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_source_refs_service_role_all ON public.agent_memory_source_refs;
CREATE POLICY agent_memory_source_refs_service_role_all ON public.agent_memory_source_refs
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_artifacts_service_role_all ON public.agent_memory_artifacts;
CREATE POLICY agent_memory_artifacts_service_role_all ON public.agent_memory_artifacts
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_relations_service_role_all ON public.agent_memory_relations;
CREATE POLICY agent_memory_relations_service_role_all ON public.agent_memory_relations
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_review_actions_service_role_all ON public.agent_memory_review_actions;
CREATE POLICY agent_memory_review_actions_service_role_all ON public.agent_memory_review_actions
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_recall_traces_service_role_all ON public.agent_memory_recall_traces;
CREATE POLICY agent_memory_recall_traces_service_role_all ON public.agent_memory_recall_traces
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_recall_items_service_role_all ON public.agent_memory_recall_items;
CREATE POLICY agent_memory_recall_items_service_role_all ON public.agent_memory_recall_items
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_memory_audit_events_service_role_all ON public.agent_memory_audit_events;
CREATE POLICY agent_memory_audit_events_service_role_all ON public.agent_memory_audit_events
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE
  public.agent_memories,
  public.agent_memory_source_refs,
  public.agent_memory_artifacts,
  public.agent_memory_relations,
  public.agent_memory_review_actions,
  public.agent_memory_recall_traces,
  public.agent_memory_recall_items,
  public.agent_memory_audit_events
TO service_role;

GRANT EXECUTE ON FUNCTION public.agent_memory_hash_text(text) TO service_role;

-- Delivered at COMMIT.
NOTIFY pgrst, 'reload schema';

COMMIT;
