CREATE TABLE IF NOT EXISTS public.thoughts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  content text NOT NULL
);
CREATE INDEX IF NOT EXISTS thoughts_created_idx ON public.thoughts (id);
ALTER TABLE public.thoughts ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thoughts TO service_role;
NOTIFY pgrst, 'reload schema';
