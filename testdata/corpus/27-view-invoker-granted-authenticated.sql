-- Memory inbox for the signed-in review app: pending agent memories with their source links.
--
-- The review app signs users in and queries with the user's JWT (role authenticated). The view
-- runs with the caller's rights (security_invoker), so the RLS of agent_memories applies to the
-- reader: with only the service_role policy in place, a signed-in user sees nothing until a
-- per-user policy is added. The view itself is granted to authenticated.
--
-- Prerequisites: schemas/agent-memory.

BEGIN;

CREATE OR REPLACE VIEW public.memory_review_inbox
WITH (security_invoker = true)
AS
SELECT m.id,
       m.workspace_id,
       m.project_id,
       m.memory_type,
       m.summary,
       m.confidence,
       m.provenance_status,
       m.created_at,
       coalesce(jsonb_agg(jsonb_build_object('kind', s.source_kind, 'uri', s.uri, 'title', s.title))
                FILTER (WHERE s.id IS NOT NULL), '[]'::jsonb) AS sources
FROM public.agent_memories AS m
LEFT JOIN public.agent_memory_source_refs AS s ON s.memory_id = m.id
WHERE m.review_status = 'pending'
  AND m.lifecycle_status = 'active'
GROUP BY m.id;

GRANT SELECT ON public.memory_review_inbox TO authenticated, service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
