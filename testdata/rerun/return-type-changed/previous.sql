-- Version 1: the number of decisions in a workspace, as integer.
CREATE OR REPLACE FUNCTION public.decision_count(p_workspace_id text)
RETURNS integer
LANGUAGE sql STABLE
SET search_path = ''
AS $$
  SELECT count(*)::integer FROM public.agent_memories
  WHERE workspace_id = p_workspace_id AND memory_type = 'decision'
$$;

REVOKE EXECUTE ON FUNCTION public.decision_count(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.decision_count(text) TO service_role;

NOTIFY pgrst, 'reload schema';
