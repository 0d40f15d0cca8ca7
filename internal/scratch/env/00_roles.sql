-- The Supabase API roles (facts: ../../../shared/docs/openbrain-facts.md §4.2), created where
-- they are missing. Run once per server by ledgercheck as a superuser. Roles are cluster-wide and
-- a --dsn server may have them already, so this file never alters a role that exists.
--
-- The role user SQL runs as is created by ledgercheck itself (scratch.Server): `postgres` in the
-- embedded cluster, shaped like hosted Supabase's postgres role after the demote migration (not a
-- superuser, BYPASSRLS, member of the API roles), or a role of the run's own on a --dsn server.
-- Unlike Supabase's it has no CREATEDB and no REPLICATION, and CREATEROLE only where the server
-- keeps CREATEROLE from granting roles it does not administer, so that user SQL can neither make
-- databases nor grant itself pg_execute_server_program.
DO $roles$
BEGIN
  -- The API roles inherit since Supabase's 20230529 migration; service_role bypasses RLS.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
    CREATE ROLE anon NOLOGIN INHERIT;
    ALTER ROLE anon SET statement_timeout = '3s';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
    CREATE ROLE authenticated NOLOGIN INHERIT;
    ALTER ROLE authenticated SET statement_timeout = '8s';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
    CREATE ROLE service_role NOLOGIN INHERIT BYPASSRLS;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticator') THEN
    CREATE ROLE authenticator LOGIN NOINHERIT;
    ALTER ROLE authenticator SET statement_timeout = '8s';
    ALTER ROLE authenticator SET lock_timeout = '8s';
    GRANT anon, authenticated, service_role TO authenticator;
  END IF;
  -- The owners of the auth and storage tables (20_auth_storage.sql); on Supabase they log in as
  -- the auth and storage services, which never run here.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_auth_admin') THEN
    CREATE ROLE supabase_auth_admin NOLOGIN NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_storage_admin') THEN
    CREATE ROLE supabase_storage_admin NOLOGIN NOINHERIT;
  END IF;
END
$roles$;
