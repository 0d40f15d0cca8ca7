-- Decision tags, second cut: the house tags get fixed ids, and the migration restarts the
-- sequence after them. Over a ledger that already has tags, the restart hands out their ids again.
CREATE TABLE IF NOT EXISTS public.decision_tags (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO public.decision_tags (id, name) VALUES (1001, 'architecture'), (1002, 'process')
ON CONFLICT DO NOTHING;
ALTER SEQUENCE public.decision_tags_id_seq RESTART WITH 1;

ALTER TABLE public.decision_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS decision_tags_service_role_all ON public.decision_tags;
CREATE POLICY decision_tags_service_role_all ON public.decision_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.decision_tags TO service_role;
GRANT USAGE ON SEQUENCE public.decision_tags_id_seq TO service_role;
