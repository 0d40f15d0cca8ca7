-- Capture stats rollup: one row per day and source with the number of thoughts captured, the
-- number embedded, and the average content length; rebuilt for the last 3 days every night by
-- pg_cron, so the dashboard reads 365 small rows instead of scanning thoughts.
--
-- Requires: core capture path, pg_cron (Database > Extensions > pg_cron).
-- Safe to run more than once: the cron job is scheduled by name, which updates it in place.

BEGIN;

CREATE TABLE IF NOT EXISTS public.capture_stats_daily (
  day          date NOT NULL,
  source       text NOT NULL,
  captured     integer NOT NULL,
  embedded     integer NOT NULL,
  avg_length   numeric(10,1),
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (day, source)
);

ALTER TABLE public.capture_stats_daily ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS capture_stats_daily_service_role_all ON public.capture_stats_daily;
CREATE POLICY capture_stats_daily_service_role_all ON public.capture_stats_daily
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.capture_stats_daily TO service_role;

CREATE OR REPLACE FUNCTION public.capture_stats_refresh(p_days integer DEFAULT 3)
RETURNS integer
LANGUAGE plpgsql
SET search_path = public
AS $$
DECLARE
  v_rows integer;
BEGIN
  INSERT INTO public.capture_stats_daily AS d (day, source, captured, embedded, avg_length)
  SELECT t.created_at::date,
         coalesce(t.metadata ->> 'source', 'unknown'),
         count(*),
         count(*) FILTER (WHERE t.embedding IS NOT NULL),
         round(avg(length(t.content)), 1)
  FROM public.thoughts AS t
  WHERE t.created_at >= current_date - greatest(p_days, 1)
  GROUP BY 1, 2
  ON CONFLICT (day, source) DO UPDATE
    SET captured = excluded.captured,
        embedded = excluded.embedded,
        avg_length = excluded.avg_length,
        refreshed_at = now();
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  RETURN v_rows;
END;
$$;

REVOKE ALL ON FUNCTION public.capture_stats_refresh(integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.capture_stats_refresh(integer) TO service_role;

-- 03:10 UTC every day. Scheduling by name replaces the job if it already exists.
SELECT cron.schedule(
  'ob1-capture-stats-refresh',
  '10 3 * * *',
  $job$SELECT public.capture_stats_refresh(3)$job$
);

NOTIFY pgrst, 'reload schema';

COMMIT;
