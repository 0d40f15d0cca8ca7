-- agent_playbooks: reusable step-by-step playbooks an agent can recall by meaning.
-- A sidecar: it adds its own table and function beside the Open Brain core and changes nothing
-- it did not create. Safe to run more than once.

CREATE TABLE IF NOT EXISTS public.agent_playbooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id text NOT NULL,
  title text NOT NULL,
  steps jsonb NOT NULL DEFAULT '[]'::jsonb,
  embedding extensions.vector(1536),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, title)
);

CREATE INDEX IF NOT EXISTS agent_playbooks_workspace_idx ON public.agent_playbooks (workspace_id);

ALTER TABLE public.agent_playbooks ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS agent_playbooks_service_role_all ON public.agent_playbooks;
CREATE POLICY agent_playbooks_service_role_all ON public.agent_playbooks
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.agent_playbooks TO service_role;

NOTIFY pgrst, 'reload schema';
