-- Thought metrics: word count and estimated reading time per thought, kept current by a trigger
-- on public.thoughts, so the dashboard can sort and filter by length without scanning content.
--
-- Prerequisites: core capture path. Safe to run more than once.

BEGIN;

CREATE TABLE IF NOT EXISTS public.thought_metrics (
  thought_id      uuid PRIMARY KEY REFERENCES public.thoughts (id) ON DELETE CASCADE,
  word_count      integer NOT NULL,
  reading_seconds integer NOT NULL,
  computed_at     timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.thought_metrics ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS thought_metrics_service_role_all ON public.thought_metrics;
CREATE POLICY thought_metrics_service_role_all ON public.thought_metrics
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_metrics TO service_role;

-- 230 words per minute.
CREATE OR REPLACE FUNCTION public.thought_metrics_refresh()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $$
DECLARE
  v_words integer := coalesce(array_length(regexp_split_to_array(btrim(NEW.content), '\s+'), 1), 0);
BEGIN
  INSERT INTO public.thought_metrics AS m (thought_id, word_count, reading_seconds)
  VALUES (NEW.id, v_words, ceil(v_words * 60.0 / 230)::integer)
  ON CONFLICT (thought_id) DO UPDATE
    SET word_count = excluded.word_count,
        reading_seconds = excluded.reading_seconds,
        computed_at = now();
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS trg_thought_metrics_refresh ON public.thoughts;
CREATE TRIGGER trg_thought_metrics_refresh
  AFTER INSERT OR UPDATE OF content ON public.thoughts
  FOR EACH ROW EXECUTE FUNCTION public.thought_metrics_refresh();

NOTIFY pgrst, 'reload schema';

COMMIT;
