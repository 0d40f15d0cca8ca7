-- One digest row per day, counted from public.thoughts by a nightly pg_cron job.
CREATE TABLE IF NOT EXISTS public.daily_digests (
  day date PRIMARY KEY,
  thought_count integer NOT NULL DEFAULT 0,
  computed_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.daily_digests ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS daily_digests_service_role ON public.daily_digests;
CREATE POLICY daily_digests_service_role ON public.daily_digests FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.daily_digests FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.daily_digests TO service_role;

CREATE OR REPLACE FUNCTION public.refresh_daily_digest(p_day date)
RETURNS integer
LANGUAGE sql
SET search_path = ''
AS $$
  INSERT INTO public.daily_digests (day, thought_count, computed_at)
  SELECT p_day, pg_catalog.count(*)::integer, pg_catalog.now()
  FROM public.thoughts t
  WHERE t.created_at >= p_day AND t.created_at < p_day + 1
  ON CONFLICT (day) DO UPDATE SET thought_count = excluded.thought_count, computed_at = excluded.computed_at
  RETURNING thought_count;
$$;
REVOKE ALL ON FUNCTION public.refresh_daily_digest(date) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.refresh_daily_digest(date) TO service_role;

CREATE EXTENSION IF NOT EXISTS pg_cron;
-- ledgercheck:ignore environment-data-changed the nightly job is what this sidecar is for
SELECT cron.schedule('ob-daily-digest', '15 3 * * *', $$SELECT public.refresh_daily_digest(current_date - 1)$$);
NOTIFY pgrst, 'reload schema';
