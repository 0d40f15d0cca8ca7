-- Corpus environment stub: the part of pg_net's SQL interface that corpus files call.
-- pg_net is not installed on the scratch server, so this stands in for it: schema net, a request
-- queue, and http_get/http_post with pg_net's parameter names and defaults. Requests are queued
-- and never sent. Written for this corpus from pg_net's documented interface.
--
-- Run as a superuser after the Supabase environment, before a corpus file that lists
-- `env/pg_net.sql` under `needs`. Idempotent.

DO $roles$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_functions_admin') THEN
    CREATE ROLE supabase_functions_admin NOLOGIN NOINHERIT CREATEROLE;
  END IF;
END
$roles$;

CREATE SCHEMA IF NOT EXISTS net;
GRANT USAGE ON SCHEMA net TO postgres, anon, authenticated, service_role, supabase_functions_admin;

CREATE TABLE IF NOT EXISTS net.http_request_queue (
  id                   bigserial PRIMARY KEY,
  method               text NOT NULL,
  url                  text NOT NULL,
  headers              jsonb NOT NULL,
  body                 bytea,
  timeout_milliseconds integer NOT NULL
);

CREATE OR REPLACE FUNCTION net.http_get(
  url                  text,
  params               jsonb DEFAULT '{}'::jsonb,
  headers              jsonb DEFAULT '{}'::jsonb,
  timeout_milliseconds integer DEFAULT 5000
)
RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = ''
AS $$
  INSERT INTO net.http_request_queue (method, url, headers, timeout_milliseconds)
  VALUES ('GET', url, headers, timeout_milliseconds)
  RETURNING id;
$$;

CREATE OR REPLACE FUNCTION net.http_post(
  url                  text,
  body                 jsonb DEFAULT '{}'::jsonb,
  params               jsonb DEFAULT '{}'::jsonb,
  headers              jsonb DEFAULT '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer DEFAULT 5000
)
RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = ''
AS $$
  INSERT INTO net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  VALUES ('POST', url, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
  RETURNING id;
$$;

REVOKE ALL ON FUNCTION net.http_get(text, jsonb, jsonb, integer),
  net.http_post(text, jsonb, jsonb, jsonb, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION net.http_get(text, jsonb, jsonb, integer),
  net.http_post(text, jsonb, jsonb, jsonb, integer)
  TO postgres, anon, authenticated, service_role, supabase_functions_admin;
