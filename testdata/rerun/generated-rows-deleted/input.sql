-- The sidecar of generated-rows, which empties its link table on every run: "start clean".
DO $$
BEGIN
  CREATE TYPE public.topic_kind AS ENUM ('person', 'project', 'place');
EXCEPTION WHEN duplicate_object THEN
  NULL;
END
$$;

CREATE TABLE IF NOT EXISTS public.topics (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug       text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]+$'),
  kind       public.topic_kind NOT NULL,
  label      text NOT NULL,
  weight     numeric(3,2) NOT NULL CHECK (weight >= 0 AND weight <= 1),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.thought_topics (
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  topic_id   uuid NOT NULL REFERENCES public.topics (id) ON DELETE CASCADE,
  status     text NOT NULL CHECK (status IN ('suggested', 'confirmed')),
  tags       text[],
  embedding  vector(1536),
  PRIMARY KEY (thought_id, topic_id)
);

-- Start clean: the rerun deletes every link the sidecar's users made.
DELETE FROM public.thought_topics;

ALTER TABLE public.topics ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.thought_topics ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.topics, public.thought_topics FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.topics, public.thought_topics TO service_role;
DROP POLICY IF EXISTS topics_service_role_all ON public.topics;
CREATE POLICY topics_service_role_all ON public.topics FOR ALL TO service_role USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS thought_topics_service_role_all ON public.thought_topics;
CREATE POLICY thought_topics_service_role_all ON public.thought_topics FOR ALL TO service_role USING (true) WITH CHECK (true);

-- The seed rows: re-runnable.
INSERT INTO public.topics (slug, kind, label, weight)
VALUES ('open-brain', 'project', 'Open Brain', 0.90)
ON CONFLICT (slug) DO NOTHING;

NOTIFY pgrst, 'reload schema';
