-- Decision tags with an index on tag. The index has no name (so it cannot say IF NOT EXISTS):
-- Postgres names it decision_tags_tag_idx, and every rerun adds another one, decision_tags_tag_idx1,
-- decision_tags_tag_idx2, ..., each slowing down every write.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  memory_id  uuid NOT NULL,
  tag        text NOT NULL,
  PRIMARY KEY (memory_id, tag)
);

CREATE INDEX ON public.decision_tags (tag);

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;

NOTIFY pgrst, 'reload schema';
