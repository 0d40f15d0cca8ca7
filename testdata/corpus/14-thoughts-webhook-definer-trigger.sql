-- Thought webhooks: POST every new thought to the URLs you subscribe (n8n, Zapier, a Discord
-- relay, ...), through pg_net, from an AFTER INSERT trigger on public.thoughts.
--
-- The trigger function is SECURITY DEFINER: it reads the subscriptions table (and its signing
-- secrets), which the writer of a thought has no privileges on. Its search_path is pinned.
--
-- Requires: core capture path, the pg_net extension (Database > Extensions > pg_net).

BEGIN;

CREATE TABLE IF NOT EXISTS public.thought_webhooks (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url         text NOT NULL CHECK (url ~ '^https://'),
  secret      text NOT NULL,
  filter      jsonb NOT NULL DEFAULT '{}'::jsonb,
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.thought_webhooks ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS thought_webhooks_service_role_all ON public.thought_webhooks;
CREATE POLICY thought_webhooks_service_role_all ON public.thought_webhooks
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.thought_webhooks TO service_role;

CREATE OR REPLACE FUNCTION public.thought_webhooks_dispatch()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, extensions, pg_temp
AS $$
DECLARE
  v_hook record;
  v_body jsonb;
BEGIN
  v_body := jsonb_build_object(
    'event', 'thought.created',
    'id', NEW.id,
    'content', NEW.content,
    'metadata', NEW.metadata,
    'created_at', NEW.created_at);

  FOR v_hook IN
    SELECT w.url, w.secret
    FROM public.thought_webhooks AS w
    WHERE w.active AND (w.filter = '{}'::jsonb OR NEW.metadata @> w.filter)
  LOOP
    PERFORM net.http_post(
      url     := v_hook.url,
      body    := v_body,
      headers := jsonb_build_object(
                   'Content-Type', 'application/json',
                   'X-OB1-Signature', encode(hmac(v_body::text, v_hook.secret, 'sha256'), 'hex')));
  END LOOP;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS trg_thought_webhooks_dispatch ON public.thoughts;
CREATE TRIGGER trg_thought_webhooks_dispatch
  AFTER INSERT ON public.thoughts
  FOR EACH ROW EXECUTE FUNCTION public.thought_webhooks_dispatch();

NOTIFY pgrst, 'reload schema';

COMMIT;
