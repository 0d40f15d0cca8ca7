-- Removes links that point back at their own thought, weekly (needs the thought-links sidecar).
CREATE OR REPLACE FUNCTION public.prune_self_links()
RETURNS bigint
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
  n bigint;
BEGIN
  DELETE FROM public.thought_links WHERE from_thought = to_thought;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;
REVOKE ALL ON FUNCTION public.prune_self_links() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.prune_self_links() TO service_role;
-- ledgercheck:ignore environment-data-changed the weekly prune job is what this recipe is for
SELECT cron.schedule('ob-prune-self-links', '0 4 * * 0', $$SELECT public.prune_self_links()$$);
NOTIFY pgrst, 'reload schema';
