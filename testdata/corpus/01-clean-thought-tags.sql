-- Thought tags: a small controlled vocabulary of tags and a join table onto public.thoughts.
--
-- Open Brain sidecar (schemas/thought-tags). Tags live in their own table instead of
-- metadata.tags so that a tag can be renamed in one place and counted without scanning jsonb.
-- Both tables use bigserial ids; the API inserts through service_role, so the sequences are
-- granted along with the tables.
--
-- Prerequisites: the Open Brain core capture path (public.thoughts).
-- Safe to run more than once.

BEGIN;

DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name = 'thoughts'
  ) THEN
    RAISE EXCEPTION 'thought-tags needs public.thoughts: run the getting-started guide first';
  END IF;
END
$$;

CREATE TABLE IF NOT EXISTS public.tags (
  id          bigserial PRIMARY KEY,
  slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  label       text NOT NULL,
  color       text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.thought_tags (
  id          bigserial PRIMARY KEY,
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  tag_id      bigint NOT NULL REFERENCES public.tags (id) ON DELETE CASCADE,
  tagged_by   text NOT NULL DEFAULT 'user' CHECK (tagged_by IN ('user', 'agent', 'import')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (thought_id, tag_id)
);

CREATE INDEX IF NOT EXISTS idx_thought_tags_tag
  ON public.thought_tags (tag_id, created_at DESC);

COMMENT ON COLUMN public.tags.slug IS 'Lower-case, URL-safe key; what the MCP tools pass around.';
COMMENT ON COLUMN public.thought_tags.tagged_by IS 'Who attached the tag: the user, an agent, or a bulk import.';

ALTER TABLE public.tags ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.thought_tags ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS tags_service_role_all ON public.tags;
CREATE POLICY tags_service_role_all ON public.tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS thought_tags_service_role_all ON public.thought_tags;
CREATE POLICY thought_tags_service_role_all ON public.thought_tags
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.tags, public.thought_tags TO service_role;
-- bigserial: inserting through the API needs the sequences as well.
GRANT USAGE, SELECT ON SEQUENCE public.tags_id_seq, public.thought_tags_id_seq TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;
