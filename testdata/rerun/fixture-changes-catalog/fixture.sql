-- Seeds the notes through a helper it leaves behind, and indexes them for the probes.
CREATE OR REPLACE FUNCTION public.seed_agent_notes(n integer) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO public.agent_notes (body) SELECT 'note ' || g FROM generate_series(1, n) g
$$;
SELECT public.seed_agent_notes(3);
COMMENT ON TABLE public.agent_notes IS 'seeded by the fixture';
CREATE INDEX IF NOT EXISTS agent_notes_created_at ON public.agent_notes (created_at);
