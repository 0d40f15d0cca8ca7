-- Version 1: recent decisions of a workspace, always ten.
CREATE OR REPLACE FUNCTION public.recent_decisions(p_workspace_id text)
RETURNS SETOF uuid
LANGUAGE sql STABLE
SET search_path = ''
AS $$
  SELECT id FROM public.agent_memories
  WHERE workspace_id = p_workspace_id AND memory_type = 'decision'
  ORDER BY created_at DESC LIMIT 10
$$;

REVOKE EXECUTE ON FUNCTION public.recent_decisions(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.recent_decisions(text) TO service_role;

NOTIFY pgrst, 'reload schema';
