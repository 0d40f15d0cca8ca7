-- bench/handmade/10_openbrain.sql: an Open Brain-style base at the psql variable :dim (the
-- thoughts table and its functions) and the agent-memory schema a decision-ledger sidecar builds
-- on. Written for the benchmark, in the style of the base a reviewer installs by hand before the
-- sidecar (bench/handmade.sh, psql -v dim=N).
CREATE TABLE public.thoughts (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  content             text NOT NULL,
  content_fingerprint text,
  embedding           extensions.vector(:dim),
  metadata            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX thoughts_embedding_idx ON public.thoughts USING hnsw (embedding extensions.vector_cosine_ops);
CREATE INDEX thoughts_metadata_idx ON public.thoughts USING gin (metadata);
CREATE UNIQUE INDEX thoughts_fingerprint_idx ON public.thoughts (content_fingerprint)
  WHERE content_fingerprint IS NOT NULL;

CREATE FUNCTION public.update_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
CREATE TRIGGER thoughts_touch BEFORE UPDATE ON public.thoughts
  FOR EACH ROW EXECUTE FUNCTION public.update_updated_at();

CREATE FUNCTION public.upsert_thought(p_content text, p_payload jsonb DEFAULT '{}')
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_fp text := encode(sha256(convert_to(lower(btrim(p_content)), 'UTF8')), 'hex');
  v_id uuid;
BEGIN
  INSERT INTO public.thoughts AS t (content, content_fingerprint, metadata)
  VALUES (p_content, v_fp, coalesce(p_payload -> 'metadata', '{}'))
  ON CONFLICT (content_fingerprint) WHERE content_fingerprint IS NOT NULL
  DO UPDATE SET metadata = t.metadata || excluded.metadata, updated_at = now()
  RETURNING t.id INTO v_id;
  RETURN jsonb_build_object('id', v_id, 'fingerprint', v_fp);
END
$$;

CREATE FUNCTION public.match_thoughts(query_embedding extensions.vector(:dim), match_threshold float DEFAULT 0.7,
                                      match_count int DEFAULT 10, filter jsonb DEFAULT '{}')
RETURNS TABLE (id uuid, content text, metadata jsonb, similarity float, created_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT t.id, t.content, t.metadata, 1 - (t.embedding OPERATOR(extensions.<=>) query_embedding), t.created_at
  FROM public.thoughts AS t
  WHERE t.metadata @> filter AND 1 - (t.embedding OPERATOR(extensions.<=>) query_embedding) > match_threshold
  ORDER BY t.embedding OPERATOR(extensions.<=>) query_embedding
  LIMIT match_count
$$;
ALTER TABLE public.thoughts ENABLE ROW LEVEL SECURITY;
CREATE POLICY thoughts_service ON public.thoughts FOR ALL TO service_role USING (true) WITH CHECK (true);

-- The agent-memory schema: memories with their scope and provenance, and the recall traces.
CREATE TABLE public.agent_memories (
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
    CHECK (memory_type IN ('decision', 'output', 'lesson', 'constraint', 'open_question', 'failure',
                           'artifact_reference', 'work_log')),
  summary                    text NOT NULL,
  content                    text NOT NULL,
  lifecycle_status           text NOT NULL DEFAULT 'active'
    CHECK (lifecycle_status IN ('active', 'stale', 'superseded', 'disputed', 'rejected')),
  provenance_status          text NOT NULL DEFAULT 'generated',
  confidence                 numeric(3,2) NOT NULL DEFAULT 0.50 CHECK (confidence BETWEEN 0 AND 1),
  created_by                 text NOT NULL DEFAULT 'agent',
  runtime_name               text,
  runtime_version            text,
  provider                   text,
  model                      text,
  task_id                    text,
  flow_id                    text,
  can_use_as_instruction     boolean NOT NULL DEFAULT false,
  can_use_as_evidence        boolean NOT NULL DEFAULT true,
  requires_user_confirmation boolean NOT NULL DEFAULT true,
  review_status              text NOT NULL DEFAULT 'pending',
  last_confirmed_at          timestamptz,
  stale_after                timestamptz,
  idempotency_key            text,
  content_hash               text,
  metadata                   jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX agent_memories_idempotency_idx ON public.agent_memories (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX agent_memories_scope_idx ON public.agent_memories (workspace_id, project_id, memory_type, lifecycle_status);
CREATE INDEX agent_memories_task_idx ON public.agent_memories (runtime_name, task_id, flow_id);

CREATE FUNCTION public.agent_memories_set_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
CREATE TRIGGER agent_memories_touch BEFORE UPDATE ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_memories_set_updated_at();

CREATE TABLE public.agent_memory_relations (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  from_memory_id uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  to_memory_id   uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  relation_type  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_memory_id, to_memory_id, relation_type)
);

CREATE TABLE public.agent_memory_recall_traces (
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
CREATE INDEX agent_memory_recall_traces_scope_idx
  ON public.agent_memory_recall_traces (workspace_id, project_id, created_at DESC);

CREATE TABLE public.agent_memory_recall_items (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  trace_id            uuid NOT NULL REFERENCES public.agent_memory_recall_traces (id) ON DELETE CASCADE,
  memory_id           uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  rank                integer NOT NULL,
  similarity          numeric(5,4),
  ranking_score       numeric(7,4),
  returned            boolean NOT NULL DEFAULT true,
  used                boolean,
  ignored_reason      text,
  use_policy_snapshot jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (trace_id, memory_id)
);

CREATE TABLE public.agent_memory_audit_events (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id    uuid REFERENCES public.agent_memories (id) ON DELETE SET NULL,
  workspace_id text NOT NULL,
  event_type   text NOT NULL,
  actor        text NOT NULL DEFAULT 'agent',
  payload      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.agent_memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_relations ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_recall_traces ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_recall_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_memory_audit_events ENABLE ROW LEVEL SECURITY;
