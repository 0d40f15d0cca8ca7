-- What else every Supabase project's database has and sidecars use (facts:
-- the sources docs/supabase-environment.md lists (§1 to §5); docs/supabase-environment.md
-- lists what is modelled and how): pg_cron, pg_net and Vault as ledgercheck's stand-in
-- extensions (env/ext), with Supabase's grants; the supabase_realtime publication; the storage
-- helper functions. Applied by ledgercheck as a superuser to each scratch template database,
-- after 20_auth_storage.sql. Idempotent.
--
-- The stand-ins are created as extensions where the server offers them: the embedded cluster
-- shows them in its sandbox (internal/scratch/extensions.go). A --dsn server offers them only if
-- they were copied into its extension directory; otherwise their scripts run as plain SQL
-- (:'standin_NAME', see env.go's PlainScript): the same schemas, objects and grants, and no
-- pg_extension row, so there a file's `CREATE EXTENSION IF NOT EXISTS pg_cron` fails unless the
-- server has a pg_cron of its own (cron.schedule and the rest work either way). A real pg_cron or
-- pg_net of a --dsn server is never created here: pg_cron refuses every database but
-- cron.database_name, and both would act (run jobs, send requests); their launcher and worker
-- read only their own database (cron.database_name, pg_net.database_name), never a scratch one.

DO $extensions$
DECLARE
  -- One read of the extension directory (pg_available_extensions parses every control file).
  ours text[] := ARRAY(SELECT name FROM pg_catalog.pg_available_extensions
                       WHERE name IN ('pg_cron', 'pg_net', 'supabase_vault') AND comment LIKE 'ledgercheck stand-in%');
BEGIN
  -- pg_cron 1.6 in pg_catalog, its objects in cron (§1). Only postgres gets anything: USAGE on
  -- cron and EXECUTE on its functions WITH GRANT OPTION (the supautils after-create script), ALL
  -- on the cron tables narrowed to SELECT on cron.job (20231020085357) and without TRIGGER on
  -- cron.job_run_details (20260730000000).
  IF 'pg_cron' = ANY (ours) THEN
    CREATE EXTENSION IF NOT EXISTS pg_cron WITH SCHEMA pg_catalog;
  ELSIF pg_catalog.to_regnamespace('cron') IS NULL THEN
    EXECUTE :'standin_pg_cron';
  END IF;
  IF pg_catalog.to_regnamespace('cron') IS NOT NULL THEN
    GRANT USAGE ON SCHEMA cron TO :"install_role" WITH GRANT OPTION;
    GRANT SELECT ON cron.job TO :"install_role" WITH GRANT OPTION;
    GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES ON cron.job_run_details
      TO :"install_role" WITH GRANT OPTION;
    GRANT EXECUTE ON FUNCTION cron.schedule(text, text), cron.schedule(text, text, text),
      cron.unschedule(bigint), cron.unschedule(text),
      cron.alter_job(bigint, text, text, text, text, boolean),
      cron.schedule_in_database(text, text, text, text, text, boolean)
      TO :"install_role" WITH GRANT OPTION;
  END IF;

  -- pg_net in schema extensions, its objects in net (§2): the extension grants PUBLIC what it
  -- needs; Supabase's grant_pg_net_access() adds USAGE on net for these roles.
  IF 'pg_net' = ANY (ours) THEN
    CREATE EXTENSION IF NOT EXISTS pg_net WITH SCHEMA extensions;
  ELSIF pg_catalog.to_regnamespace('net') IS NULL THEN
    EXECUTE :'standin_pg_net';
  END IF;
  IF pg_catalog.to_regnamespace('net') IS NOT NULL THEN
    GRANT USAGE ON SCHEMA net TO supabase_functions_admin, :"install_role", anon, authenticated, service_role;
  END IF;

  -- supabase_vault in schema vault (§3): postgres (WITH GRANT OPTION) and service_role get
  -- USAGE, SELECT and DELETE on the secrets and the decrypted view, EXECUTE on create_secret,
  -- update_secret and _crypto_aead_det_decrypt; anon and authenticated nothing.
  IF 'supabase_vault' = ANY (ours) THEN
    CREATE EXTENSION IF NOT EXISTS supabase_vault;
  ELSIF pg_catalog.to_regnamespace('vault') IS NULL THEN
    CREATE SCHEMA vault; -- CREATE EXTENSION makes it from the control file
    EXECUTE :'standin_supabase_vault';
  END IF;
  IF pg_catalog.to_regnamespace('vault') IS NOT NULL THEN
    GRANT USAGE ON SCHEMA vault TO :"install_role" WITH GRANT OPTION;
    GRANT USAGE ON SCHEMA vault TO service_role;
    GRANT SELECT, DELETE ON vault.secrets, vault.decrypted_secrets TO :"install_role" WITH GRANT OPTION;
    GRANT SELECT, DELETE ON vault.secrets, vault.decrypted_secrets TO service_role;
    GRANT EXECUTE ON FUNCTION vault.create_secret(text, text, text, uuid),
      vault.update_secret(uuid, text, text, text, uuid),
      vault._crypto_aead_det_decrypt(bytea, bytea, bigint, bytea, bytea) TO :"install_role" WITH GRANT OPTION;
    GRANT EXECUTE ON FUNCTION vault.create_secret(text, text, text, uuid),
      vault.update_secret(uuid, text, text, text, uuid),
      vault._crypto_aead_det_decrypt(bytea, bytea, bigint, bytea, bytea) TO service_role;
  END IF;
END
$extensions$;

-- Realtime (§4): the publication, empty and not FOR ALL TABLES, publishing every operation. Its
-- owner is postgres (inferred: the init script creates it before postgres is demoted, and
-- `ALTER PUBLICATION supabase_realtime ADD TABLE ...` from the SQL editor, which runs as
-- postgres, is how Supabase's documentation enables Realtime on a table).
DO $realtime$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = 'supabase_realtime') THEN
    SET LOCAL client_min_messages = error; -- not a logical-replication server (wal_level)
    CREATE PUBLICATION supabase_realtime;
    ALTER PUBLICATION supabase_realtime OWNER TO :"install_role";
  END IF;
END
$realtime$;

-- dashboard_user (§5): ALL on the auth, extensions and storage schemas (on database postgres
-- too, which a scratch database is not).
GRANT ALL ON SCHEMA auth, extensions, storage TO dashboard_user;

-- Storage helpers (§5; supabase/storage's tenant migrations 0060 to 0063), owned by
-- supabase_storage_admin like the storage tables. search, get_size_by_bucket and
-- can_insert_object are simplified: same signatures, results from storage.objects alone.
CREATE OR REPLACE FUNCTION storage.foldername(name text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
  _parts text[];
BEGIN
  _parts := pg_catalog.string_to_array(name, '/');
  RETURN _parts[1 : pg_catalog.array_length(_parts, 1) - 1];
END
$$;

CREATE OR REPLACE FUNCTION storage.filename(name text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$ SELECT (pg_catalog.string_to_array(name, '/'))[pg_catalog.array_length(pg_catalog.string_to_array(name, '/'), 1)] $$;

CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
  _filename text;
BEGIN
  _filename := storage.filename(name);
  RETURN pg_catalog.split_part(_filename, '.', -1);
END
$$;

CREATE OR REPLACE FUNCTION storage.search(prefix text, bucketname text, limits int DEFAULT 100,
  levels int DEFAULT 1, offsets int DEFAULT 0, search text DEFAULT '', sortcolumn text DEFAULT 'name',
  sortorder text DEFAULT 'asc')
RETURNS TABLE (name text, id uuid, updated_at timestamptz, created_at timestamptz,
  last_accessed_at timestamptz, metadata jsonb)
LANGUAGE sql STABLE SECURITY INVOKER
AS $$
  SELECT o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata
  FROM storage.objects o
  WHERE o.bucket_id = bucketname
    AND o.name ILIKE prefix || '%'
    AND o.name ILIKE '%' || search || '%'
  ORDER BY CASE WHEN sortorder = 'desc' THEN NULL ELSE o.name END,
           CASE WHEN sortorder = 'desc' THEN o.name END DESC
  LIMIT limits OFFSET offsets
$$;

CREATE OR REPLACE FUNCTION storage.get_size_by_bucket() RETURNS TABLE (size bigint, bucket_id text)
LANGUAGE sql STABLE
AS $$
  SELECT sum((o.metadata ->> 'size')::bigint)::bigint AS size, o.bucket_id
  FROM storage.objects o GROUP BY o.bucket_id
$$;

CREATE OR REPLACE FUNCTION storage.can_insert_object(bucketid text, name text, owner uuid, metadata jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO storage.objects (bucket_id, name, owner, metadata) VALUES (bucketid, name, owner, metadata);
  -- Supabase's way of rolling the insert back: the caller only learns whether it was allowed.
  RAISE sqlstate 'PT200' USING message = 'ROLLBACK', detail = 'rollback successful insert';
END
$$;

CREATE OR REPLACE FUNCTION storage.operation() RETURNS text
LANGUAGE sql STABLE
AS $$ SELECT pg_catalog.current_setting('storage.operation', true) $$;

ALTER FUNCTION storage.foldername(text) OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.filename(text) OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.extension(text) OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.search(text, text, int, int, int, text, text, text) OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.get_size_by_bucket() OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.can_insert_object(text, text, uuid, jsonb) OWNER TO supabase_storage_admin;
ALTER FUNCTION storage.operation() OWNER TO supabase_storage_admin;
GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text),
  storage.search(text, text, int, int, int, text, text, text), storage.get_size_by_bucket(),
  storage.can_insert_object(text, text, uuid, jsonb), storage.operation()
  TO :"install_role", anon, authenticated, service_role;
