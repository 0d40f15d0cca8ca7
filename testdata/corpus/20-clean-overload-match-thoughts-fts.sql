-- match_thoughts for brains without an embedding service: a full-text overload.
--
-- Same name and result shape as match_thoughts(vector, float, int, jsonb), so the MCP server
-- can call one RPC either way: PostgREST picks the overload by argument name (query_text here,
-- query_embedding there). "similarity" is the ts_rank_cd of the OR-ed query lexemes, saturated
-- into [0,1). The existing vector overload is not touched.
--
-- Prerequisites: core capture path.

BEGIN;

CREATE OR REPLACE FUNCTION public.match_thoughts(
  query_text  text,
  match_count integer DEFAULT 10,
  filter      jsonb DEFAULT '{}'
)
RETURNS TABLE (id uuid, content text, metadata jsonb, similarity float, created_at timestamptz)
LANGUAGE plpgsql
STABLE
SET search_path = public
AS $$
DECLARE
  v_query tsquery;
BEGIN
  SELECT coalesce(string_agg(quote_literal(l.lexeme), ' | '), '')::tsquery
    INTO v_query
  FROM unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, '')))) AS l(lexeme);

  RETURN QUERY
  SELECT t.id, t.content, t.metadata, r.rank / (1 + r.rank) AS similarity, t.created_at
  FROM public.thoughts AS t
  CROSS JOIN LATERAL (
    SELECT (10 * ts_rank_cd(to_tsvector('english', t.content), v_query))::float AS rank
  ) AS r
  WHERE to_tsvector('english', t.content) @@ v_query
    AND (filter = '{}'::jsonb OR t.metadata @> filter)
  ORDER BY r.rank DESC, t.created_at DESC
  LIMIT greatest(coalesce(match_count, 10), 1);
END;
$$;

COMMENT ON FUNCTION public.match_thoughts(text, integer, jsonb) IS
  'Full-text variant of match_thoughts for setups without embeddings: OR-ed lexemes, similarity = x/(1+x) of 10*ts_rank_cd.';

REVOKE EXECUTE ON FUNCTION public.match_thoughts(text, integer, jsonb) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.match_thoughts(text, integer, jsonb) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
