-- Ledger scratch area: drafts an agent keeps for 30 days. A named pg_cron job purges them
-- nightly, and the webhook token the purge report uses is stored in Vault.

CREATE TABLE IF NOT EXISTS public.ledger_scratch (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  draft      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.ledger_scratch ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_scratch_service_role_all ON public.ledger_scratch;
CREATE POLICY ledger_scratch_service_role_all ON public.ledger_scratch
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.ledger_scratch TO service_role;

SELECT cron.schedule('ledger-scratch-purge', '30 4 * * *',
  $$DELETE FROM public.ledger_scratch WHERE created_at < now() - interval '30 days'$$);

DO $token$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM vault.secrets WHERE name = 'ledger_purge_token') THEN
    PERFORM vault.create_secret('replace-me', 'ledger_purge_token', 'token of the purge report webhook');
  END IF;
END
$token$;

NOTIFY pgrst, 'reload schema';
