-- Tags on thoughts: one row per (thought, tag), removed with the thought.
CREATE TABLE IF NOT EXISTS public.thought_tags (
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  tag text NOT NULL CHECK (tag OPERATOR(pg_catalog.~) '^[a-z0-9][a-z0-9-]*$'),
  tagged_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thought_id, tag)
);
CREATE INDEX IF NOT EXISTS thought_tags_tag_idx ON public.thought_tags (tag);
ALTER TABLE public.thought_tags ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS thought_tags_service_role ON public.thought_tags;
CREATE POLICY thought_tags_service_role ON public.thought_tags FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.thought_tags FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_tags TO service_role;
NOTIFY pgrst, 'reload schema';
