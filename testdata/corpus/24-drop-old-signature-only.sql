-- Related thoughts v2: related_thoughts(p_thought_id, p_count, p_min_similarity).
--
-- v1 took (p_thought_id, p_count). The DO block removes the v1 signature so the two do not
-- coexist as overloads, then v2 is created.
--
-- Prerequisites: core capture path (embeddings on thoughts).

BEGIN;

DO $cleanup$
DECLARE
  v_fn regprocedure;
BEGIN
  FOR v_fn IN
    SELECT p.oid::regprocedure
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace
      AND p.proname = 'related_thoughts'
      AND p.pronargs = 2          -- the v1 signature
  LOOP
    EXECUTE format('DROP FUNCTION %s', v_fn);
  END LOOP;
END
$cleanup$;

CREATE FUNCTION public.related_thoughts(
  p_thought_id     uuid,
  p_count          integer DEFAULT 5,
  p_min_similarity float DEFAULT 0.5
)
RETURNS TABLE (id uuid, content text, similarity float)
LANGUAGE sql
STABLE
SET search_path = public, extensions
AS $$
  SELECT o.id, o.content, (1 - (o.embedding <=> s.embedding))::float AS similarity
  FROM public.thoughts AS s
  JOIN public.thoughts AS o ON o.id <> s.id AND o.embedding IS NOT NULL
  WHERE s.id = p_thought_id
    AND s.embedding IS NOT NULL
    AND 1 - (o.embedding <=> s.embedding) >= p_min_similarity
  ORDER BY o.embedding <=> s.embedding
  LIMIT greatest(p_count, 1);
$$;

REVOKE ALL ON FUNCTION public.related_thoughts(uuid, integer, float) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.related_thoughts(uuid, integer, float) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
