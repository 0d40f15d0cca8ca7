-- Sources still to read (needs the sources sidecar).
CREATE TABLE IF NOT EXISTS public.reading_items (
  source_id bigint PRIMARY KEY REFERENCES public.sources (id) ON DELETE CASCADE,
  priority smallint NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),
  read_at timestamptz
);
ALTER TABLE public.reading_items ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS reading_items_service_role ON public.reading_items;
CREATE POLICY reading_items_service_role ON public.reading_items FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.reading_items FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.reading_items TO service_role;
NOTIFY pgrst, 'reload schema';
