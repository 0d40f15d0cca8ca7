-- One counter function per note kind, each created by EXECUTE from a template: the bodies exist
-- only once the DO block has run, so a finding in one points at the EXECUTE that made it, with
-- the line of the body it is on.
BEGIN;
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind       text NOT NULL,
  body       text NOT NULL
);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;
-- ledgercheck:ignore dynamic-sql one counter per kind, from the template below
DO $do$
DECLARE
  k text;
BEGIN
  FOREACH k IN ARRAY ARRAY['idea', 'task'] LOOP
    EXECUTE format($f$
      CREATE OR REPLACE FUNCTION public.%I() RETURNS bigint
      LANGUAGE plpgsql STABLE SET search_path = '' AS $b$
      BEGIN
        RETURN (SELECT count(*) FROM public.lc_notes n WHERE n.knd = %L);
      END;
      $b$;
      REVOKE ALL ON FUNCTION public.%I() FROM PUBLIC, anon, authenticated;
      GRANT EXECUTE ON FUNCTION public.%I() TO service_role$f$,
      'lc_count_' || k, k, 'lc_count_' || k, 'lc_count_' || k);
  END LOOP;
END
$do$;
NOTIFY pgrst, 'reload schema';
COMMIT;
