-- Capture-source index pack: faster "thoughts from Slack this week" queries.
-- Builds the indexes CONCURRENTLY so a busy brain keeps accepting captures while they build.
--
-- Also adds public.capture_sources, a small lookup of known sources with display names.

BEGIN;

CREATE TABLE IF NOT EXISTS public.capture_sources (
  source       text PRIMARY KEY,
  display_name text NOT NULL,
  icon         text,
  created_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.capture_sources ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS capture_sources_service_role_all ON public.capture_sources;
CREATE POLICY capture_sources_service_role_all ON public.capture_sources
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.capture_sources TO service_role;

CREATE INDEX CONCURRENTLY IF NOT EXISTS capture_sources_display_name_idx
  ON public.capture_sources (lower(display_name));

CREATE INDEX CONCURRENTLY IF NOT EXISTS thoughts_source_created_idx
  ON public.thoughts ((metadata ->> 'source'), created_at DESC);

NOTIFY pgrst, 'reload schema';

COMMIT;
