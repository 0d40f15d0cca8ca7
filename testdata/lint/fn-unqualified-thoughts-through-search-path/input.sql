SET search_path TO public, extensions;
ALTER TABLE IF EXISTS THOUGHTS ADD COLUMN IF NOT EXISTS ledger_step int;
NOTIFY pgrst, 'reload schema';
