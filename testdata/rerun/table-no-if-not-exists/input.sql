-- Tags on decisions. CREATE TABLE without IF NOT EXISTS: the second run fails there.
CREATE TABLE public.decision_tags (
  memory_id  uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  tag        text NOT NULL,
  PRIMARY KEY (memory_id, tag)
);

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;

NOTIFY pgrst, 'reload schema';
