-- v2 of a sidecar: the v1 overload of its own function took no limit and was SECURITY DEFINER;
-- the upgrade drops it (as upgrade-stale-object asks) before creating the new signature.
DROP FUNCTION IF EXISTS public.household_items_search(text);
CREATE OR REPLACE FUNCTION public.household_items_search(p_query text, p_limit integer)
RETURNS SETOF uuid
LANGUAGE sql STABLE SET search_path = public AS $$
  SELECT t.id FROM public.thoughts t WHERE t.content ILIKE '%' || p_query || '%' LIMIT p_limit
$$;
REVOKE EXECUTE ON FUNCTION public.household_items_search(text, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.household_items_search(text, integer) TO service_role;
NOTIFY pgrst, 'reload schema';
