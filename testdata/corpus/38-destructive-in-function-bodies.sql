-- Thought links: typed links between two thoughts ("follows up", "contradicts", "same topic"),
-- plus maintenance helpers the admin page calls.
--
-- Prerequisites: core capture path.

BEGIN;

CREATE TABLE IF NOT EXISTS public.thought_links (
  id          bigserial PRIMARY KEY,
  from_id     uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  to_id       uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('follows_up', 'contradicts', 'same_topic', 'answers')),
  created_by  text NOT NULL DEFAULT 'user',
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_id, to_id, kind),
  CHECK (from_id <> to_id)
);

CREATE TABLE IF NOT EXISTS public.thought_link_suggestions (
  from_id     uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  to_id       uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  similarity  real NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (from_id, to_id)
);

ALTER TABLE public.thought_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.thought_link_suggestions ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS thought_links_service_role_all ON public.thought_links;
CREATE POLICY thought_links_service_role_all ON public.thought_links
  FOR ALL TO service_role USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS thought_link_suggestions_service_role_all ON public.thought_link_suggestions;
CREATE POLICY thought_link_suggestions_service_role_all ON public.thought_link_suggestions
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_links, public.thought_link_suggestions TO service_role;
GRANT USAGE, SELECT ON SEQUENCE public.thought_links_id_seq TO service_role;

-- Recompute suggestions from scratch: nearest neighbours above 0.8 that are not linked yet.
CREATE OR REPLACE FUNCTION public.thought_link_suggestions_rebuild()
RETURNS integer
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
  v_n integer;
BEGIN
  TRUNCATE public.thought_link_suggestions;

  INSERT INTO public.thought_link_suggestions (from_id, to_id, similarity)
  SELECT a.id, b.id, (1 - (a.embedding <=> b.embedding))::real
  FROM public.thoughts AS a
  JOIN public.thoughts AS b ON b.id > a.id
  WHERE a.embedding IS NOT NULL AND b.embedding IS NOT NULL
    AND 1 - (a.embedding <=> b.embedding) > 0.8
    AND NOT EXISTS (SELECT 1 FROM public.thought_links AS l
                    WHERE (l.from_id, l.to_id) IN ((a.id, b.id), (b.id, a.id)));
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END;
$$;

-- Drop stale suggestions for thoughts edited since they were computed.
CREATE OR REPLACE FUNCTION public.thought_link_suggestions_prune()
RETURNS integer
LANGUAGE plpgsql
SET search_path = public
AS $$
DECLARE
  v_n integer;
BEGIN
  DELETE FROM public.thought_link_suggestions AS s
   USING public.thoughts AS t
   WHERE t.id IN (s.from_id, s.to_id)
     AND t.updated_at > s.computed_at;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END;
$$;

-- "Start over" button on the admin page: forget every link the agent made.
CREATE OR REPLACE FUNCTION public.thought_links_reset_agent()
RETURNS void
LANGUAGE sql
SET search_path = public
AS $$
  DELETE FROM public.thought_links;
  UPDATE public.thought_link_suggestions SET computed_at = '-infinity';
$$;

REVOKE ALL ON FUNCTION public.thought_link_suggestions_rebuild(), public.thought_link_suggestions_prune(),
  public.thought_links_reset_agent() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.thought_link_suggestions_rebuild(), public.thought_link_suggestions_prune(),
  public.thought_links_reset_agent() TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
