-- Decision tags with a seed tag. The migration "resets" the seed with TRUNCATE before inserting
-- it, which on a rerun deletes every tag users added since.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  memory_id  uuid NOT NULL,
  tag        text NOT NULL,
  PRIMARY KEY (memory_id, tag)
);

TRUNCATE public.decision_tags;
INSERT INTO public.decision_tags (memory_id, tag)
VALUES ('00000000-0000-4000-8000-000000000000', 'seed')
ON CONFLICT DO NOTHING;

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;

NOTIFY pgrst, 'reload schema';
