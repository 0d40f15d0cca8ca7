-- Decision tags, first cut: the ids come from the sequence.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;
GRANT USAGE ON SEQUENCE public.decision_tags_id_seq TO service_role;
