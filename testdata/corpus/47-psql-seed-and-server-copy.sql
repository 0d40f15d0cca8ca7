\set ON_ERROR_STOP on
-- Book notes: highlights exported from an e-reader, imported once from the CSV the export tool
-- writes, then kept in Open Brain as their own table (one thought per book links to them).
--
-- Run with psql on the database host after copying the export to /tmp/highlights.csv.

BEGIN;

CREATE TABLE IF NOT EXISTS public.book_highlights (
  id           bigserial PRIMARY KEY,
  book_title   text NOT NULL,
  author       text,
  location     text,
  highlight    text NOT NULL,
  highlighted_at timestamptz,
  thought_id   uuid REFERENCES public.thoughts (id) ON DELETE SET NULL
);

ALTER TABLE public.book_highlights ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS book_highlights_service_role_all ON public.book_highlights;
CREATE POLICY book_highlights_service_role_all ON public.book_highlights
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.book_highlights TO service_role;
GRANT USAGE, SELECT ON SEQUENCE public.book_highlights_id_seq TO service_role;

COPY public.book_highlights (book_title, author, location, highlight, highlighted_at)
  FROM '/tmp/highlights.csv' WITH (FORMAT csv, HEADER true);

NOTIFY pgrst, 'reload schema';

COMMIT;
