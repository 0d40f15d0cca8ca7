-- Agent memory timeline: two read RPCs for the timeline page of the review app.
--   memory_timeline(workspace, days)   memories per day and type
--   memory_timeline_detail(workspace, day)   the memories of one day
-- Both are SECURITY INVOKER; service_role reads agent_memories anyway.
--
-- Prerequisites: schemas/agent-memory.

BEGIN;

CREATE OR REPLACE FUNCTION public.memory_timeline(p_workspace_id text, p_days integer DEFAULT 14)
RETURNS TABLE (day date, memory_type text, memories bigint)
LANGUAGE sql
STABLE
SET search_path = public
AS $$
  SELECT m.created_at::date, m.memory_type, count(*)
  FROM public.agent_memories AS m
  WHERE m.workspace_id = p_workspace_id
    AND m.created_at >= current_date - greatest(p_days, 1)
  GROUP BY 1, 2
  ORDER BY 1 DESC, 2;
$$;

GRANT EXECUTE ON FUNCTION public.memory_timeline(text, integer) TO service_role;

CREATE OR REPLACE FUNCTION public.memory_timeline_detail(p_workspace_id text, p_day date)
RETURNS SETOF public.agent_memories
LANGUAGE sql
STABLE
SET search_path = public
AS $$
  SELECT m.*
  FROM public.agent_memories AS m
  WHERE m.workspace_id = p_workspace_id
    AND m.created_at >= p_day
    AND m.created_at < p_day + 1
  ORDER BY m.created_at;
$$;

REVOKE EXECUTE ON FUNCTION public.memory_timeline_detail(text, date) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.memory_timeline_detail(text, date) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
