-- A mood per thought, as an enum.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type WHERE typname = 'thought_mood' AND typnamespace = 'public'::regnamespace) THEN
    CREATE TYPE public.thought_mood AS ENUM ('calm', 'curious', 'worried', 'excited');
  END IF;
END
$$;
CREATE TABLE IF NOT EXISTS public.thought_moods (
  thought_id uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  mood public.thought_mood NOT NULL,
  noted_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.thought_moods ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS thought_moods_service_role ON public.thought_moods;
CREATE POLICY thought_moods_service_role ON public.thought_moods FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.thought_moods FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_moods TO service_role;
NOTIFY pgrst, 'reload schema';
