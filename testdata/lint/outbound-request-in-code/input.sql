-- Ledger webhooks: every new decision is posted to the team's chat, and an RPC pings a URL the
-- caller chooses. Both send data out of the database whenever they run, long after the deploy.
CREATE TABLE IF NOT EXISTS public.ledger_hooks (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text NOT NULL);
ALTER TABLE public.ledger_hooks ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_hooks_service_role_all ON public.ledger_hooks;
CREATE POLICY ledger_hooks_service_role_all ON public.ledger_hooks
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger_hooks TO service_role;

CREATE OR REPLACE FUNCTION public.ledger_hooks_notify() RETURNS trigger
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  PERFORM net.http_post('https://chat.example.com/hooks/ledger', to_jsonb(NEW));
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS ledger_hooks_notify ON public.ledger_hooks;
CREATE TRIGGER ledger_hooks_notify AFTER INSERT ON public.ledger_hooks
  FOR EACH ROW EXECUTE FUNCTION public.ledger_hooks_notify();

CREATE OR REPLACE FUNCTION public.ledger_ping(p_url text) RETURNS bigint
LANGUAGE sql SET search_path = '' AS $$ SELECT net.http_get(url := p_url) $$;
REVOKE EXECUTE ON FUNCTION public.ledger_ping(text) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.ledger_ping(text) TO service_role;
NOTIFY pgrst, 'reload schema';
