-- bench/handmade/00_roles.sql: the Supabase API roles, once per cluster (bench/handmade.sh), before
-- the per-database environment (10_supabase.sql). Written for the benchmark.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'anon') THEN
    CREATE ROLE anon NOLOGIN NOINHERIT;
    CREATE ROLE authenticated NOLOGIN NOINHERIT;
    CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
    CREATE ROLE authenticator LOGIN NOINHERIT;
    GRANT anon, authenticated, service_role TO authenticator;
    CREATE ROLE supabase_admin SUPERUSER LOGIN;
  END IF;
END
$$;

