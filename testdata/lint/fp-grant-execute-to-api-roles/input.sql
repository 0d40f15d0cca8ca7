-- A public search helper of a sidecar, meant for every API caller: granting EXECUTE to anon and
-- authenticated opens it; PUBLIC's default EXECUTE adds nothing to that.
CREATE OR REPLACE FUNCTION public.search_recipes(p_query text, p_limit integer DEFAULT 10)
RETURNS TABLE (id uuid, title text)
LANGUAGE sql STABLE SET search_path = public AS $$
  SELECT t.id, t.content FROM public.thoughts t WHERE t.content ILIKE '%' || p_query || '%' LIMIT p_limit
$$;
GRANT EXECUTE ON FUNCTION public.search_recipes(text, integer) TO anon, authenticated;
NOTIFY pgrst, 'reload schema';
