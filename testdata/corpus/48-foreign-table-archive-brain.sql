-- Archive brain: read the thoughts of last year's Open Brain project (a second Supabase project)
-- from this one, through postgres_fdw, so recall can reach old thoughts without migrating them.
-- The archive is read-only; the review app (signed-in users) can browse it.
--
-- Requires postgres_fdw enabled (Database > Extensions) and the archive's connection details.
-- The password is set in the dashboard, not here.

CREATE EXTENSION IF NOT EXISTS postgres_fdw WITH SCHEMA extensions;

CREATE SERVER IF NOT EXISTS ob1_archive
  FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'db.archive-project.supabase.invalid', port '5432', dbname 'postgres');

CREATE USER MAPPING IF NOT EXISTS FOR postgres
  SERVER ob1_archive
  OPTIONS (user 'archive_reader');

CREATE FOREIGN TABLE IF NOT EXISTS public.archived_thoughts (
  id         uuid,
  content    text,
  metadata   jsonb,
  created_at timestamptz
)
SERVER ob1_archive
OPTIONS (schema_name 'public', table_name 'thoughts');

GRANT SELECT ON public.archived_thoughts TO service_role, authenticated;

NOTIFY pgrst, 'reload schema';
