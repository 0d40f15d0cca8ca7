-- Corpus environment: postgres_fdw enabled by an administrator, in schema extensions, with USAGE
-- on the wrapper for postgres (on Supabase the dashboard does the equivalent; postgres_fdw is not
-- a trusted extension, so the migration's role cannot create it itself).
--
-- Run as a superuser after the Supabase environment, before a corpus file that lists
-- `env/postgres_fdw.sql` under `needs`. Idempotent.

CREATE EXTENSION IF NOT EXISTS postgres_fdw WITH SCHEMA extensions;
GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO postgres;
