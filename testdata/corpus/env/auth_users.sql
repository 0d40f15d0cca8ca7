-- Corpus environment stub: auth.users, the way a Supabase project has it (openbrain-facts.md,
-- "auth.users and the other auth tables"). Written for this corpus; not GoTrue's SQL.
--
-- Run as a superuser (supabase_admin in ledgercheck's embedded cluster) after the Supabase
-- environment (migrations/env/) and before a corpus file that lists `env/auth_users.sql` under
-- `needs`. Idempotent.
--
-- Privileges: the auth tables belong to supabase_auth_admin, and the API roles hold no table
-- privileges on them. postgres gets SELECT and REFERENCES, which is what a migration run as
-- postgres needs to declare `REFERENCES auth.users (id)` or to read it in a view
-- (20211115181400_update-auth-permissions gave postgres ALL on auth; how much of that the 2024
-- lock-down left is not in the facts, so this stub keeps only the two privileges the corpus
-- exercises).

DO $roles$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_auth_admin') THEN
    CREATE ROLE supabase_auth_admin NOLOGIN NOINHERIT;
  END IF;
END
$roles$;

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
GRANT SELECT, REFERENCES ON auth.users TO postgres;

-- Two users, so that a leak through a view is visible in a probe.
INSERT INTO auth.users (id, aud, role, email, created_at, updated_at)
VALUES ('00000000-0000-4000-a000-000000000001', 'authenticated', 'authenticated', 'ada@example.com', now(), now()),
       ('00000000-0000-4000-a000-000000000002', 'authenticated', 'authenticated', 'grace@example.com', now(), now())
ON CONFLICT (id) DO NOTHING;
