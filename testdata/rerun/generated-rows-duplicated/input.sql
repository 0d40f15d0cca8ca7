-- A sidecar with no fixture that backfills a review row for every thought, without ON CONFLICT
-- or NOT EXISTS: over empty tables it looks re-runnable; over generated thoughts, each rerun
-- inserts every review again.
CREATE TABLE IF NOT EXISTS public.thought_reviews (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  reviewed_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.thought_reviews ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.thought_reviews FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_reviews TO service_role;
DROP POLICY IF EXISTS thought_reviews_service_role_all ON public.thought_reviews;
CREATE POLICY thought_reviews_service_role_all ON public.thought_reviews FOR ALL TO service_role USING (true) WITH CHECK (true);

-- Backfill: every thought gets its review row.
INSERT INTO public.thought_reviews (thought_id) SELECT id FROM public.thoughts;

NOTIFY pgrst, 'reload schema';
