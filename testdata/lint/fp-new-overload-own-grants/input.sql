CREATE OR REPLACE FUNCTION public.match_thoughts(p_query text, p_count integer, p_filter jsonb)
RETURNS SETOF public.thoughts
LANGUAGE sql STABLE SET search_path = public AS $$ SELECT * FROM public.thoughts LIMIT p_count $$;
COMMENT ON FUNCTION public.match_thoughts(text, integer, jsonb) IS 'full-text overload';
REVOKE EXECUTE ON FUNCTION public.match_thoughts(text, integer, jsonb) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.match_thoughts(text, int, jsonb) TO service_role;
NOTIFY pgrst, 'reload schema';
