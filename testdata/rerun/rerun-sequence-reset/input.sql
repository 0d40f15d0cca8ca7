-- Decision tags: a lookup table the migration seeds with the house tags at fixed ids, then
-- "keeps the sequence in step" with them. On a second run the seed rows conflict and stay, but
-- setval puts the sequence back to 3: the next tag an agent adds gets id 4, which is taken.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO public.decision_tags (id, name) VALUES (1, 'architecture'), (2, 'process'), (3, 'blocker')
ON CONFLICT (id) DO NOTHING;
SELECT setval('public.decision_tags_id_seq', 3);

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;
GRANT USAGE ON SEQUENCE public.decision_tags_id_seq TO service_role;

NOTIFY pgrst, 'reload schema';
