-- Brain health views for the ops page: what was captured lately, from where, and what is stale.
-- Read by the ops dashboard with the service role key.
-- recipes/brain-health; needs the core capture path.

CREATE OR REPLACE VIEW public.ops_recent_captures AS
SELECT t.id, t.created_at, left(t.content, 200) AS preview, t.metadata ->> 'source' AS source
  FROM public.thoughts t
 WHERE t.created_at > now() - interval '7 days';

CREATE OR REPLACE VIEW public.ops_capture_sources AS
SELECT coalesce(t.metadata ->> 'source', 'unknown') AS source, count(*) AS captures, max(t.created_at) AS last_seen
  FROM public.thoughts t
 GROUP BY 1;

CREATE OR REPLACE VIEW public.ops_stale_thoughts AS
SELECT t.id, t.updated_at
  FROM public.thoughts t
 WHERE t.updated_at < now() - interval '180 days';

GRANT SELECT ON public.ops_recent_captures, public.ops_capture_sources, public.ops_stale_thoughts TO service_role;

NOTIFY pgrst, 'reload schema';
