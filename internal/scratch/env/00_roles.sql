-- The Supabase API roles (facts: docs/supabase-environment.md, OB §4.2), created where
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
  -- The other roles of a Supabase project (facts: docs/supabase-environment.md, §5), with
  -- Supabase's attributes except LOGIN: they are the dashboard's, the services' and the
  -- pooler's, none of which runs here, and nothing logs in as them. None is granted to the
  -- install role.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dashboard_user') THEN
    CREATE ROLE dashboard_user NOLOGIN CREATEROLE CREATEDB REPLICATION;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_functions_admin') THEN
    CREATE ROLE supabase_functions_admin NOLOGIN NOINHERIT CREATEROLE;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_realtime_admin') THEN
    CREATE ROLE supabase_realtime_admin NOLOGIN NOINHERIT CREATEROLE REPLICATION;
    GRANT anon, authenticated, service_role TO supabase_realtime_admin;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_replication_admin') THEN
    CREATE ROLE supabase_replication_admin NOLOGIN REPLICATION;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_read_only_user') THEN
    CREATE ROLE supabase_read_only_user NOLOGIN BYPASSRLS;
    ALTER ROLE supabase_read_only_user SET default_transaction_read_only = on;
    GRANT pg_read_all_data TO supabase_read_only_user;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pgbouncer') THEN
    CREATE ROLE pgbouncer NOLOGIN;
  END IF;
END
$roles$;
