-- Bookmark capture: a browser extension sends (url, note); the RPC stores the bookmark and
-- captures the note as a thought through upsert_thought, in one call.
--
-- capture_bookmark is SECURITY DEFINER with an empty search_path (every name below is
-- schema-qualified). Only service_role may execute it: EXECUTE is revoked from PUBLIC and from
-- anon and authenticated, which Supabase's default privileges grant it to directly.
--
-- Prerequisites: core capture path (public.thoughts, public.upsert_thought).

BEGIN;

CREATE TABLE IF NOT EXISTS public.bookmarks (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url         text NOT NULL UNIQUE,
  title       text,
  thought_id  uuid REFERENCES public.thoughts (id) ON DELETE SET NULL,
  saved_count integer NOT NULL DEFAULT 1,
  first_saved timestamptz NOT NULL DEFAULT now(),
  last_saved  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.bookmarks ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS bookmarks_service_role_all ON public.bookmarks;
CREATE POLICY bookmarks_service_role_all ON public.bookmarks
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.bookmarks TO service_role;

CREATE OR REPLACE FUNCTION public.capture_bookmark(p_url text, p_title text DEFAULT NULL, p_note text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  v_thought jsonb;
  v_id      uuid;
BEGIN
  IF p_note IS NOT NULL AND btrim(p_note) <> '' THEN
    v_thought := public.upsert_thought(
      p_note,
      jsonb_build_object('metadata', jsonb_build_object('source', 'bookmark', 'url', p_url, 'title', p_title)));
  END IF;

  INSERT INTO public.bookmarks AS b (url, title, thought_id)
  VALUES (p_url, p_title, (v_thought ->> 'id')::uuid)
  ON CONFLICT (url) DO UPDATE
    SET title       = coalesce(excluded.title, b.title),
        thought_id  = coalesce(excluded.thought_id, b.thought_id),
        saved_count = b.saved_count + 1,
        last_saved  = now()
  RETURNING b.id INTO v_id;

  RETURN jsonb_build_object('bookmark_id', v_id, 'thought', v_thought);
END;
$$;

REVOKE EXECUTE ON FUNCTION public.capture_bookmark(text, text, text) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.capture_bookmark(text, text, text) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
