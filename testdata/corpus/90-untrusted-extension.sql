-- Ledger attachments: large objects for the files a decision cites, cleaned up by lo's trigger.
BEGIN;
DO $$ BEGIN EXECUTE format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA extensions', 'lo'); END $$;
CREATE TABLE IF NOT EXISTS public.ledger_attachments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id uuid REFERENCES public.thoughts (id) ON DELETE CASCADE,
  file_name text NOT NULL,
  blob oid
);
ALTER TABLE public.ledger_attachments ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_attachments_service_role_all ON public.ledger_attachments;
CREATE POLICY ledger_attachments_service_role_all ON public.ledger_attachments
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger_attachments TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
