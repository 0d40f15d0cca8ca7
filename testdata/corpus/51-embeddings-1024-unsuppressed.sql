-- mxbai embeddings for agent memories: embed agent_memories.content directly (instead of going
-- through the linked thought) with mxbai-embed-large from a local Ollama, 1024 dims.

BEGIN;

CREATE TABLE IF NOT EXISTS public.agent_memory_embeddings (
  memory_id   uuid PRIMARY KEY REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  embedding   vector(1024) NOT NULL,
  model       text NOT NULL DEFAULT 'mxbai-embed-large',
  embedded_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS agent_memory_embeddings_hnsw_idx
  ON public.agent_memory_embeddings USING hnsw (embedding vector_cosine_ops);

ALTER TABLE public.agent_memory_embeddings ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS agent_memory_embeddings_service_role_all ON public.agent_memory_embeddings;
CREATE POLICY agent_memory_embeddings_service_role_all ON public.agent_memory_embeddings
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.agent_memory_embeddings TO service_role;

CREATE OR REPLACE FUNCTION public.match_agent_memories_mxbai(
  p_workspace_id    text,
  p_query_embedding vector(1024),
  p_match_count     integer DEFAULT 10
)
RETURNS TABLE (memory_id uuid, summary text, similarity float)
LANGUAGE sql
STABLE
SET search_path = public, extensions
AS $$
  SELECT m.id, m.summary, (1 - (e.embedding <=> p_query_embedding))::float
  FROM public.agent_memory_embeddings AS e
  JOIN public.agent_memories AS m ON m.id = e.memory_id
  WHERE m.workspace_id = p_workspace_id AND m.lifecycle_status = 'active'
  ORDER BY e.embedding <=> p_query_embedding
  LIMIT greatest(p_match_count, 1);
$$;

REVOKE ALL ON FUNCTION public.match_agent_memories_mxbai(text, vector, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.match_agent_memories_mxbai(text, vector, integer) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
