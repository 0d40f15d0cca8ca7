-- Shared snippets: thoughts you choose to publish on a public page (a "now" page, a digital garden).
-- The page reads with the anon key, so anon gets SELECT on published rows.
-- schemas/shared-snippets; needs the core capture path.

BEGIN;

CREATE TABLE IF NOT EXISTS public.shared_snippets (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id    uuid NOT NULL UNIQUE REFERENCES public.thoughts (id) ON DELETE CASCADE,
  slug          text NOT NULL UNIQUE,
  title         text,
  body_markdown text NOT NULL,
  published_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.shared_snippets ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS shared_snippets_service_role_all ON public.shared_snippets;
CREATE POLICY shared_snippets_service_role_all ON public.shared_snippets
  FOR ALL TO service_role USING (true) WITH CHECK (true);

-- Public read: everything in this table is published by definition.
DROP POLICY IF EXISTS shared_snippets_public_read ON public.shared_snippets;
CREATE POLICY shared_snippets_public_read ON public.shared_snippets
  FOR SELECT TO anon, authenticated USING (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.shared_snippets TO service_role;
GRANT SELECT ON public.shared_snippets TO anon, authenticated;

NOTIFY pgrst, 'reload schema';

COMMIT;
