-- Recipe search, v2.
--
-- v1 shipped recipe_search(text) as SECURITY DEFINER with no pinned search_path. v2 takes a
-- limit, runs as the caller and is for the service role only. The v1 overload is dropped
-- explicitly so that an upgraded project does not keep the unsafe one beside the new one.
--
-- Prerequisites: Open Brain core (public.thoughts).

CREATE TABLE IF NOT EXISTS public.recipes (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id  uuid REFERENCES public.thoughts (id) ON DELETE CASCADE,
  title       text NOT NULL,
  servings    integer CHECK (servings > 0),
  created_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.recipes ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS recipes_service_role_all ON public.recipes;
CREATE POLICY recipes_service_role_all ON public.recipes
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.recipes TO service_role;

-- v1's overload, with its old argument list.
DROP FUNCTION IF EXISTS public.recipe_search(text);

CREATE OR REPLACE FUNCTION public.recipe_search(p_query text, p_limit integer DEFAULT 20)
RETURNS SETOF public.recipes
LANGUAGE sql
STABLE
SET search_path = public, pg_temp
AS $$
  SELECT r.*
    FROM public.recipes r
   WHERE r.title ILIKE '%' || p_query || '%'
   ORDER BY r.created_at DESC
   LIMIT p_limit
$$;

REVOKE EXECUTE ON FUNCTION public.recipe_search(text, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.recipe_search(text, integer) TO service_role;

NOTIFY pgrst, 'reload schema';
