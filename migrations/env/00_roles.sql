-- Supabase-like cluster roles (facts: ../../../shared/docs/openbrain-facts.md §4.2).
-- Run once per server by ledgercheck as the bootstrap superuser (supabase_admin in the embedded
-- cluster). Roles are cluster-wide and a --dsn server may be shared, so this file only creates
-- roles that are missing, with their attributes, and never alters a role that already exists.
--
-- postgres is shaped like hosted Supabase's postgres role after the demote migration: not a
-- superuser, CREATEDB CREATEROLE BYPASSRLS, member of the API roles. User SQL (prerequisites,
-- artifact, port, fixtures, probes) runs as this role in the embedded cluster, so COPY ...
-- PROGRAM, server file reads, ALTER SYSTEM and untrusted languages fail there as on Supabase.
DO $roles$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_admin') THEN
    CREATE ROLE supabase_admin NOLOGIN;
  END IF;
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
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'postgres') THEN
    CREATE ROLE postgres LOGIN NOSUPERUSER CREATEDB CREATEROLE REPLICATION BYPASSRLS;
    ALTER ROLE postgres SET search_path = "$user", public, extensions;
    GRANT anon, authenticated, service_role TO postgres;
  END IF;
END
$roles$;
