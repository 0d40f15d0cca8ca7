-- Uptime pings for the integrations you connect to Open Brain: each row of
-- integration_endpoints is pinged every five minutes through pg_net, and the MCP server can ask
-- for a ping right away with ping_integration(url).
--
-- Needs pg_net and pg_cron enabled.

CREATE TABLE IF NOT EXISTS public.integration_endpoints (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL,
  url        text NOT NULL,
  last_ping  bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.integration_endpoints ENABLE ROW LEVEL SECURITY;

CREATE POLICY integration_endpoints_service ON public.integration_endpoints
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT ALL ON public.integration_endpoints TO service_role;
GRANT USAGE ON SEQUENCE public.integration_endpoints_id_seq TO service_role;

-- Called by the MCP server with the service key.
CREATE OR REPLACE FUNCTION public.ping_integration(p_url text)
RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = public, extensions
AS $$
  SELECT net.http_get(url := p_url, timeout_milliseconds := 3000);
$$;

CREATE OR REPLACE FUNCTION public.ping_all_integrations()
RETURNS integer
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
  n integer := 0;
  e record;
BEGIN
  FOR e IN SELECT id, url FROM public.integration_endpoints LOOP
    UPDATE public.integration_endpoints SET last_ping = public.ping_integration(e.url) WHERE id = e.id;
    n := n + 1;
  END LOOP;
  RETURN n;
END;
$$;

SELECT cron.schedule('*/5 * * * *', 'SELECT public.ping_all_integrations()');

NOTIFY pgrst, 'reload schema';
