-- Who is mentioned under which tag: a view over the thought-tags and thought-people sidecars.
CREATE OR REPLACE VIEW public.tag_people WITH (security_invoker = true) AS
SELECT tt.tag, tp.person_id, pg_catalog.count(*) AS thoughts
FROM public.thought_tags tt
JOIN public.thought_people tp ON tp.thought_id = tt.thought_id
GROUP BY tt.tag, tp.person_id;
REVOKE ALL ON public.tag_people FROM anon, authenticated;
GRANT SELECT ON public.tag_people TO service_role;
NOTIFY pgrst, 'reload schema';
