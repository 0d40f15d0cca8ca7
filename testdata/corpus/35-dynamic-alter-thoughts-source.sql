-- Source links on thoughts: source_url and source_title columns, filled by the browser capture
-- extension. Added only where missing, column by column, so that installs that already added one
-- of them by hand (some did, from an early README) don't fail.

DO $add_columns$
DECLARE
  v_col text;
BEGIN
  FOREACH v_col IN ARRAY ARRAY['source_url', 'source_title'] LOOP
    IF NOT EXISTS (
      SELECT 1 FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = 'thoughts' AND column_name = v_col
    ) THEN
      EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I text', 'public', 'thoughts', v_col);
    END IF;
  END LOOP;
END
$add_columns$;

NOTIFY pgrst, 'reload schema';
