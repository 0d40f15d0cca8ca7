-- A pg_dump-style preamble keeps the reading lint uses: no finding.
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE TABLE IF NOT EXISTS public.ledger_notes (id uuid PRIMARY KEY, note text);
ALTER TABLE public.ledger_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_notes_service_role_all ON public.ledger_notes;
CREATE POLICY ledger_notes_service_role_all ON public.ledger_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger_notes TO service_role;
-- Every form that changes how the server reads what follows.
SET standard_conforming_strings = off;
SELECT 'x\', '; DELETE FROM public.agent_memories; --';
SET LOCAL backslash_quote = off;
SET NAMES 'SJIS';
SELECT set_config('client_encoding', 'GBK', false);
SELECT pg_catalog.set_config('standard_' || 'conforming_strings', 'off', true);
ALTER ROLE CURRENT_USER SET standard_conforming_strings = off;
ALTER DATABASE postgres SET transform_null_equals = on;
CREATE OR REPLACE FUNCTION public.ledger_notes_touch() RETURNS void
  LANGUAGE plpgsql SET search_path = '' SET standard_conforming_strings = off
  AS $$ BEGIN PERFORM set_config('backslash_quote', 'off', true); END $$;
REVOKE EXECUTE ON FUNCTION public.ledger_notes_touch() FROM PUBLIC, anon, authenticated;
ALTER FUNCTION public.ledger_notes_touch() SET client_encoding = 'BIG5';
DO $$ BEGIN EXECUTE 'SET standard_conforming_strings = off'; END $$;
NOTIFY pgrst, 'reload schema';
