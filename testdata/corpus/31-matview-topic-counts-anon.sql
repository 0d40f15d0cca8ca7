-- Topic cloud for the public profile page: how often each topic appears across thoughts.
-- A materialized view (the count over all thoughts is too slow per page view), refreshed by
-- the backend after captures; the page reads it with the anon key.

CREATE MATERIALIZED VIEW IF NOT EXISTS public.thought_topic_counts AS
SELECT topic,
       count(*)        AS thoughts,
       max(t.created_at) AS last_seen
FROM public.thoughts AS t
CROSS JOIN LATERAL jsonb_array_elements_text(
  CASE WHEN jsonb_typeof(t.metadata -> 'topics') = 'array' THEN t.metadata -> 'topics' ELSE '[]'::jsonb END
) AS topic
GROUP BY topic
WITH DATA;

CREATE UNIQUE INDEX IF NOT EXISTS thought_topic_counts_topic_idx ON public.thought_topic_counts (topic);

GRANT SELECT ON public.thought_topic_counts TO anon, service_role;

NOTIFY pgrst, 'reload schema';
