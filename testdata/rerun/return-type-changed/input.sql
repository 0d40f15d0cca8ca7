-- Version 2: the count as bigint. CREATE OR REPLACE cannot change a function's return type, so
-- this runs on a fresh database (and again and again) but fails over version 1.
CREATE OR REPLACE FUNCTION public.decision_count(p_workspace_id text)
RETURNS bigint
LANGUAGE sql STABLE
SET search_path = ''
AS $$
  SELECT count(*) FROM public.agent_memories
  WHERE workspace_id = p_workspace_id AND memory_type = 'decision'
$$;

REVOKE EXECUTE ON FUNCTION public.decision_count(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.decision_count(text) TO service_role;

NOTIFY pgrst, 'reload schema';
