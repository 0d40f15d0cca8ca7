-- The Supabase environment of one database (facts: docs/supabase-environment.md, OB §4.3 to §4.6).
-- Applied by ledgercheck as a superuser to each scratch template database, before any user SQL.
-- Idempotent. :"install_role" is the role user SQL runs as (postgres in the embedded cluster) and
-- :"admin_role" the superuser (supabase_admin in the embedded cluster), written the way psql
-- variables are, so `psql -v install_role=postgres -v admin_role=supabase_admin -f` runs it too.

-- Schemas.
CREATE SCHEMA IF NOT EXISTS extensions;
GRANT USAGE ON SCHEMA extensions TO :"install_role", anon, authenticated, service_role;
CREATE SCHEMA IF NOT EXISTS auth AUTHORIZATION :"admin_role";
GRANT USAGE ON SCHEMA auth TO :"install_role", anon, authenticated, service_role;
GRANT USAGE ON SCHEMA public TO :"install_role", anon, authenticated, service_role;

-- Extensions live in schema extensions; pgvector is enabled the way the dashboard enables it.
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA extensions;

-- Auth helpers as GoTrue defines them since 2024: the legacy per-claim setting first, then the
-- claim read from the JSON in request.jwt.claims (which PostgREST sets per transaction).
CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

CREATE OR REPLACE FUNCTION auth.role() RETURNS text
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

CREATE OR REPLACE FUNCTION auth.email() RETURNS text
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

CREATE OR REPLACE FUNCTION auth.jwt() RETURNS jsonb
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

GRANT EXECUTE ON FUNCTION auth.uid(), auth.role(), auth.email(), auth.jwt()
  TO :"install_role", anon, authenticated, service_role;

-- Default privileges on public for objects postgres creates. Since 2026-10-30 hosted projects no
-- longer grant table privileges on new public tables to the API roles (Supabase changelog
-- #45329), which is why sidecar migrations GRANT explicitly; functions and sequences keep the
-- old defaults.
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON TABLES TO :"install_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON SEQUENCES TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON FUNCTIONS TO :"install_role", anon, authenticated, service_role;
