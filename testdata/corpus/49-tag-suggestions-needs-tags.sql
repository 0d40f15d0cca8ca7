-- Tag suggestions: tags an agent proposes for a thought, waiting for the user to accept them.
-- Accepting moves the row into public.thought_tags.
--
-- Requires the thought-tags schema (public.tags, public.thought_tags) on top of the core path.

BEGIN;

DO $$
BEGIN
  IF to_regclass('public.tags') IS NULL OR to_regclass('public.thought_tags') IS NULL THEN
    RAISE EXCEPTION 'tag-suggestions needs schemas/thought-tags';
  END IF;
END
$$;

CREATE TABLE IF NOT EXISTS public.tag_suggestions (
  thought_id   uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  tag_id       bigint NOT NULL REFERENCES public.tags (id) ON DELETE CASCADE,
  confidence   real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  suggested_by text NOT NULL,
  suggested_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thought_id, tag_id)
);

ALTER TABLE public.tag_suggestions ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS tag_suggestions_service_role_all ON public.tag_suggestions;
CREATE POLICY tag_suggestions_service_role_all ON public.tag_suggestions
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.tag_suggestions TO service_role;

-- Accept a suggestion: tag the thought, drop the suggestion.
CREATE OR REPLACE FUNCTION public.accept_tag_suggestion(p_thought_id uuid, p_tag_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = public
AS $$
BEGIN
  DELETE FROM public.tag_suggestions
   WHERE thought_id = p_thought_id AND tag_id = p_tag_id;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  INSERT INTO public.thought_tags (thought_id, tag_id, tagged_by)
  VALUES (p_thought_id, p_tag_id, 'agent')
  ON CONFLICT (thought_id, tag_id) DO NOTHING;
  RETURN true;
END;
$$;

REVOKE ALL ON FUNCTION public.accept_tag_suggestion(uuid, bigint) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.accept_tag_suggestion(uuid, bigint) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
