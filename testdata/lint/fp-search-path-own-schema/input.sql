CREATE SCHEMA IF NOT EXISTS ledger;
SET search_path TO ledger, public;
CREATE TABLE IF NOT EXISTS entries (id uuid PRIMARY KEY);
ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.entries ADD COLUMN IF NOT EXISTS note text;
DROP POLICY IF EXISTS entries_service_role_all ON entries;
CREATE POLICY entries_service_role_all ON ledger.entries FOR ALL TO service_role USING (true);
GRANT SELECT ON "ledger"."entries" TO service_role;
NOTIFY pgrst, 'reload schema';
