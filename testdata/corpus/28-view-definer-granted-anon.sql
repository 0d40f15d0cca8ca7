-- Public thoughts feed for the personal site: thoughts marked metadata.public = true, newest
-- first. The site fetches /rest/v1/public_thoughts with the anon key.

CREATE OR REPLACE VIEW public.public_thoughts AS
SELECT t.id,
       t.content,
       t.metadata -> 'topics' AS topics,
       t.created_at
FROM public.thoughts AS t
WHERE (t.metadata ->> 'public')::boolean IS TRUE
ORDER BY t.created_at DESC;

GRANT SELECT ON public.public_thoughts TO anon, authenticated;

NOTIFY pgrst, 'reload schema';
