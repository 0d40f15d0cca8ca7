-- Dashboard stats RPC: thoughts per source and per day, for the OB1 dashboard's activity chart.
--
-- SECURITY DEFINER so the chart works without giving the dashboard's key SELECT on thoughts.
-- "Locked down": EXECUTE revoked from PUBLIC, granted to service_role.

CREATE OR REPLACE FUNCTION public.dashboard_thought_stats(p_days integer DEFAULT 30)
RETURNS TABLE (day date, source text, thoughts bigint)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
  SELECT date_trunc('day', t.created_at)::date AS day,
         coalesce(t.metadata ->> 'source', 'unknown') AS source,
         count(*) AS thoughts
  FROM public.thoughts AS t
  WHERE t.created_at >= now() - make_interval(days => greatest(p_days, 1))
  GROUP BY 1, 2
  ORDER BY 1 DESC, 2;
$$;

REVOKE EXECUTE ON FUNCTION public.dashboard_thought_stats(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.dashboard_thought_stats(integer) TO service_role;

NOTIFY pgrst, 'reload schema';
