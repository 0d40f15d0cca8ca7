-- Which person a thought mentions (needs the people sidecar).
CREATE TABLE IF NOT EXISTS public.thought_people (
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES public.people (id) ON DELETE CASCADE,
  role text NOT NULL DEFAULT 'mentioned',
  PRIMARY KEY (thought_id, person_id)
);
CREATE INDEX IF NOT EXISTS thought_people_person_idx ON public.thought_people (person_id);
ALTER TABLE public.thought_people ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS thought_people_service_role ON public.thought_people;
CREATE POLICY thought_people_service_role ON public.thought_people FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.thought_people FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_people TO service_role;
NOTIFY pgrst, 'reload schema';
