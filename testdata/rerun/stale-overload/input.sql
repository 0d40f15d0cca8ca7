-- Version 2 adds a limit parameter. A new argument list is a new function to Postgres, so
-- CREATE OR REPLACE adds an overload and version 1's recent_decisions(text) stays behind, still
-- executable by service_role (and calls with one argument become ambiguous).
CREATE OR REPLACE FUNCTION public.recent_decisions(p_workspace_id text, p_limit integer DEFAULT 10)
RETURNS SETOF uuid
LANGUAGE sql STABLE
SET search_path = ''
AS $$
  SELECT id FROM public.agent_memories
  WHERE workspace_id = p_workspace_id AND memory_type = 'decision'
  ORDER BY created_at DESC LIMIT p_limit
$$;

REVOKE EXECUTE ON FUNCTION public.recent_decisions(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.recent_decisions(text, integer) TO service_role;

NOTIFY pgrst, 'reload schema';
