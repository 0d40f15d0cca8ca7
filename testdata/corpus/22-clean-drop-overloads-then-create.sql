-- Topic-scoped recall: recall_thoughts_by_topic(), a vector search restricted to thoughts whose
-- metadata.topics contains the topic (the capture path's extractor fills metadata.topics).
--
-- v0.3 changed the signature (added p_since, dropped p_min_similarity), and CREATE OR REPLACE
-- with different parameters would leave the old version next to the new one, where PostgREST
-- cannot choose between them (PGRST203). So every existing overload of the name is dropped by
-- its exact signature first, and the function is then created fresh.
--
-- Prerequisites: core capture path (1536-dim embeddings).

BEGIN;

DO $drop$
DECLARE
  v_sig regprocedure;
BEGIN
  FOR v_sig IN
    SELECT p.oid::regprocedure
    FROM pg_proc AS p
    JOIN pg_namespace AS n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public'
      AND p.proname = 'recall_thoughts_by_topic'
  LOOP
    EXECUTE format('DROP FUNCTION %s', v_sig);
  END LOOP;
END
$drop$;

CREATE FUNCTION public.recall_thoughts_by_topic(
  p_query_embedding vector(1536),
  p_topic           text,
  p_match_count     integer DEFAULT 10,
  p_since           timestamptz DEFAULT NULL
)
RETURNS TABLE (id uuid, content text, similarity float, created_at timestamptz)
LANGUAGE sql
STABLE
SET search_path = public, extensions
AS $$
  SELECT t.id, t.content, (1 - (t.embedding <=> p_query_embedding))::float, t.created_at
  FROM public.thoughts AS t
  WHERE t.embedding IS NOT NULL
    AND t.metadata -> 'topics' ? p_topic
    AND (p_since IS NULL OR t.created_at >= p_since)
  ORDER BY t.embedding <=> p_query_embedding
  LIMIT greatest(coalesce(p_match_count, 10), 1);
$$;

REVOKE ALL ON FUNCTION public.recall_thoughts_by_topic(vector, text, integer, timestamptz) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.recall_thoughts_by_topic(vector, text, integer, timestamptz) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
