-- Bulk confirm for agent memories: the review UI lets the user tick many pending memories and
-- confirm them at once. The function runs as its owner (the UI's key has no UPDATE on
-- agent_memories) and logs each confirmation as a review action, like the API's confirm action.
--
-- Prerequisites: schemas/agent-memory.

CREATE OR REPLACE FUNCTION public.agent_memories_bulk_confirm(p_memory_ids uuid[], p_actor text DEFAULT 'user')
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_count integer;
BEGIN
  WITH confirmed AS (
    UPDATE public.agent_memories AS m
       SET review_status = 'confirmed',
           provenance_status = 'user_confirmed',
           can_use_as_instruction = true,
           requires_user_confirmation = false,
           last_confirmed_at = now()
     WHERE m.id = ANY (p_memory_ids)
       AND m.review_status = 'pending'
    RETURNING m.id
  )
  INSERT INTO public.agent_memory_review_actions (memory_id, action, actor_label, notes)
  SELECT c.id, 'confirm', p_actor, 'bulk confirm'
  FROM confirmed AS c;

  GET DIAGNOSTICS v_count = ROW_COUNT;
  RETURN v_count;
END;
$$;

-- Only the backend calls this.
GRANT EXECUTE ON FUNCTION public.agent_memories_bulk_confirm(uuid[], text) TO service_role;

NOTIFY pgrst, 'reload schema';
