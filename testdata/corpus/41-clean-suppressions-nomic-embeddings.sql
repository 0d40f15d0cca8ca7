-- Local embeddings side table: nomic-embed-text (768 dims) vectors for thoughts, next to the
-- 1536-dim OpenRouter ones in thoughts.embedding. Lets a laptop brain search offline with Ollama
-- while the hosted one keeps text-embedding-3-small. A trigger on thoughts queues a thought for
-- (re-)embedding when its content changes; a local worker drains the queue.
--
-- Reviewed exceptions are marked inline with ledgercheck:ignore and a reason.
--
-- Prerequisites: core capture path, pgvector.

BEGIN;

-- ledgercheck:ignore vector-dimension nomic-embed-text vectors are 768-dim by design; thoughts.embedding stays 1536
CREATE TABLE IF NOT EXISTS public.thought_embeddings_nomic (
  thought_id  uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  embedding   vector(768) NOT NULL,
  model       text NOT NULL DEFAULT 'nomic-embed-text:v1.5',
  embedded_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS thought_embeddings_nomic_hnsw_idx
  ON public.thought_embeddings_nomic USING hnsw (embedding vector_cosine_ops);

CREATE TABLE IF NOT EXISTS public.thought_embedding_queue (
  thought_id  uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  queued_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.thought_embeddings_nomic ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.thought_embedding_queue ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS thought_embeddings_nomic_service_role_all ON public.thought_embeddings_nomic;
CREATE POLICY thought_embeddings_nomic_service_role_all ON public.thought_embeddings_nomic
  FOR ALL TO service_role USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS thought_embedding_queue_service_role_all ON public.thought_embedding_queue;
CREATE POLICY thought_embedding_queue_service_role_all ON public.thought_embedding_queue
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_embeddings_nomic, public.thought_embedding_queue TO service_role;

-- ledgercheck:ignore vector-dimension the query vector comes from the same 768-dim model as the table
CREATE OR REPLACE FUNCTION public.match_thoughts_nomic(
  query_embedding vector(768),
  match_count     integer DEFAULT 10
)
RETURNS TABLE (id uuid, content text, similarity float)
LANGUAGE sql
STABLE
SET search_path = public, extensions
AS $$
  SELECT t.id, t.content, (1 - (e.embedding <=> query_embedding))::float
  FROM public.thought_embeddings_nomic AS e
  JOIN public.thoughts AS t ON t.id = e.thought_id
  ORDER BY e.embedding <=> query_embedding
  LIMIT greatest(match_count, 1);
$$;

REVOKE ALL ON FUNCTION public.match_thoughts_nomic(vector, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.match_thoughts_nomic(vector, integer) TO service_role;

CREATE OR REPLACE FUNCTION public.thought_embedding_enqueue()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $$
BEGIN
  INSERT INTO public.thought_embedding_queue (thought_id) VALUES (NEW.id)
  ON CONFLICT (thought_id) DO UPDATE SET queued_at = now();
  RETURN NULL;
END;
$$;

REVOKE ALL ON FUNCTION public.thought_embedding_enqueue() FROM PUBLIC, anon, authenticated;

DROP TRIGGER IF EXISTS trg_thought_embedding_enqueue ON public.thoughts;
-- ledgercheck:ignore attaches-to-existing-table queues re-embedding on content changes; writes only to this sidecar's queue
CREATE TRIGGER trg_thought_embedding_enqueue
  AFTER INSERT OR UPDATE OF content ON public.thoughts
  FOR EACH ROW EXECUTE FUNCTION public.thought_embedding_enqueue();

NOTIFY pgrst, 'reload schema';

COMMIT;
