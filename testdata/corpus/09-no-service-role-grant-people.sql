-- People index: the people mentioned in thoughts, with aliases, so "what did Priya say about X"
-- can resolve Priya / P. / priya@ to one person. Sidecar to the core capture path.
--
-- (Supabase gives new public tables to the API roles by default, so no GRANT step.)

BEGIN;

CREATE TABLE IF NOT EXISTS public.people (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  display_name text NOT NULL,
  aliases      text[] NOT NULL DEFAULT '{}',
  email        text,
  notes        text,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.thought_people (
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  person_id  uuid NOT NULL REFERENCES public.people (id) ON DELETE CASCADE,
  PRIMARY KEY (thought_id, person_id)
);

CREATE INDEX IF NOT EXISTS people_aliases_gin ON public.people USING gin (aliases);

ALTER TABLE public.people ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.thought_people ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS people_service_role_all ON public.people;
CREATE POLICY people_service_role_all ON public.people
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS thought_people_service_role_all ON public.thought_people;
CREATE POLICY thought_people_service_role_all ON public.thought_people
  FOR ALL TO service_role USING (true) WITH CHECK (true);

NOTIFY pgrst, 'reload schema';

COMMIT;
