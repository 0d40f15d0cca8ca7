-- Thought chunks: long thoughts (meeting transcripts, pasted articles) split into ~800-token
-- chunks with their own embeddings, searched by match_thought_chunks().
--
-- The chunk embedding must have the same dimension as thoughts.embedding (1536 on the stock
-- setup, 768 or 1024 on Ollama ports), so the table and the search function are created with
-- the dimension read from the catalog instead of a hard-coded one. The search function runs as
-- its owner so the MCP server's key needs no SELECT on chunks.
--
-- Prerequisites: core capture path with embeddings.

BEGIN;

DO $chunks$
DECLARE
  v_dim integer;
BEGIN
  SELECT a.atttypmod INTO v_dim
  FROM pg_attribute AS a
  WHERE a.attrelid = 'public.thoughts'::regclass AND a.attname = 'embedding';

  IF v_dim IS NULL OR v_dim < 1 THEN
    RAISE EXCEPTION 'thought-chunks: cannot read the dimension of public.thoughts.embedding';
  END IF;

  EXECUTE format($sql$
    CREATE TABLE IF NOT EXISTS public.thought_chunks (
      id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
      chunk_no    integer NOT NULL,
      content     text NOT NULL,
      embedding   extensions.vector(%s),
      created_at  timestamptz NOT NULL DEFAULT now(),
      UNIQUE (thought_id, chunk_no)
    );
    ALTER TABLE public.thought_chunks ENABLE ROW LEVEL SECURITY;
  $sql$, v_dim);

  EXECUTE format($sql$
    CREATE OR REPLACE FUNCTION public.match_thought_chunks(
      query_embedding extensions.vector(%s),
      match_count integer DEFAULT 10
    )
    RETURNS TABLE (thought_id uuid, chunk_no integer, content text, similarity float)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, extensions
    AS $fn$
      SELECT c.thought_id, c.chunk_no, c.content, (1 - (c.embedding <=> query_embedding))::float
      FROM public.thought_chunks AS c
      WHERE c.embedding IS NOT NULL
      ORDER BY c.embedding <=> query_embedding
      LIMIT greatest(match_count, 1);
    $fn$;
  $sql$, v_dim);
END
$chunks$;

GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_chunks TO service_role;

REVOKE EXECUTE ON FUNCTION public.match_thought_chunks(extensions.vector, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.match_thought_chunks(extensions.vector, integer) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
