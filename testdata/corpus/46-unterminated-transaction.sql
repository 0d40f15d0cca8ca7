-- Quote collection: memorable quotes pulled out of thoughts, with who said them.
-- schemas/quotes. Needs the core capture path.

BEGIN;

CREATE TABLE IF NOT EXISTS public.quotes (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id  uuid REFERENCES public.thoughts (id) ON DELETE SET NULL,
  quote       text NOT NULL,
  said_by     text,
  said_on     date,
  created_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.quotes ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS quotes_service_role_all ON public.quotes;
CREATE POLICY quotes_service_role_all ON public.quotes
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.quotes TO service_role;

NOTIFY pgrst, 'reload schema';
