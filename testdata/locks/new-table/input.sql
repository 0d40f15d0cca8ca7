-- A sidecar that only creates and changes its own tables: their locks (ACCESS EXCLUSIVE from
-- CREATE TABLE and ALTER TABLE, SHARE from CREATE INDEX) report nothing.
CREATE TABLE IF NOT EXISTS public.reading_list (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.reading_list ADD COLUMN IF NOT EXISTS rank double precision DEFAULT random();
CREATE INDEX IF NOT EXISTS idx_reading_list_rank ON public.reading_list (rank);
ALTER TABLE public.reading_list ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON public.reading_list TO service_role;
