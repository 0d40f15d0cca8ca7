-- What sidecars reference of Supabase's auth and storage services (facts: supabase/postgres, OB
-- §4.2, §4.3 and §4.7): auth.users, the table a `user_id uuid REFERENCES auth.users (id)` or a
-- directory view points at, and the two storage tables a sidecar attaching files to thoughts
-- reads. Written for ledgercheck from those facts; not GoTrue's or storage-api's SQL (their
-- other tables, refresh tokens, identities, audit log, migrations, are left out: no sidecar
-- references them). Applied by ledgercheck as a superuser to each scratch template database,
-- after 10_database.sql. Idempotent. Environment schemas: never part of a footprint.
--
-- Ownership and grants as on Supabase: the auth tables belong to supabase_auth_admin and the API
-- roles hold no privilege on them (USAGE on the schema only); the install role (postgres) may
-- read auth.users and reference it, which is what a migration needs to declare a foreign key
-- to it or a view over it. The storage schema and tables belong to supabase_storage_admin, with
-- row level security on, and the install role and the API roles hold ALL on them (Supabase's
-- default privileges in storage); policies decide what the API roles see.

CREATE TABLE IF NOT EXISTS auth.users (
  instance_id          uuid,
  id                   uuid PRIMARY KEY,
  aud                  varchar(255),
  role                 varchar(255),
  email                varchar(255) UNIQUE,
  encrypted_password   varchar(255),
  email_confirmed_at   timestamptz,
  invited_at           timestamptz,
  confirmation_token   varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token       varchar(255),
  recovery_sent_at     timestamptz,
  email_change_token   varchar(255),
  email_change         varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at      timestamptz,
  raw_app_meta_data    jsonb,
  raw_user_meta_data   jsonb,
  is_super_admin       boolean,
  created_at           timestamptz,
  updated_at           timestamptz,
  phone                text UNIQUE,
  deleted_at           timestamptz,
  is_anonymous         boolean NOT NULL DEFAULT false
);
ALTER TABLE auth.users OWNER TO supabase_auth_admin;
-- Its owner uses the schema (on Supabase it owns it): a foreign key's check on auth.users runs as
-- the table's owner, so a row that references a user could not be inserted without it.
GRANT USAGE ON SCHEMA auth TO supabase_auth_admin;
REVOKE ALL ON auth.users FROM PUBLIC;
GRANT SELECT, REFERENCES ON auth.users TO :"install_role";

CREATE SCHEMA IF NOT EXISTS storage AUTHORIZATION supabase_storage_admin;
GRANT USAGE ON SCHEMA storage TO :"install_role", anon, authenticated, service_role;

CREATE TABLE IF NOT EXISTS storage.buckets (
  id         text PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  owner      uuid,
  public     boolean NOT NULL DEFAULT false,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now()
);
CREATE TABLE IF NOT EXISTS storage.objects (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bucket_id        text REFERENCES storage.buckets (id),
  name             text,
  owner            uuid,
  metadata         jsonb,
  created_at       timestamptz DEFAULT now(),
  updated_at       timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  UNIQUE (bucket_id, name)
);
ALTER TABLE storage.buckets OWNER TO supabase_storage_admin;
ALTER TABLE storage.objects OWNER TO supabase_storage_admin;
ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
GRANT ALL ON storage.buckets, storage.objects TO :"install_role", anon, authenticated, service_role;
