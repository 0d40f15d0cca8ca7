-- ledgercheck's stand-in for supabase_vault 0.3.1 (facts: the sources docs/supabase-environment.md lists,
-- §3; README.md beside this file says why it is a stand-in). Written for ledgercheck from those
-- facts, not Vault's SQL. The table, the view and the functions have Vault's columns, signatures,
-- defaults and SECURITY DEFINER; all five functions are revoked from PUBLIC. Vault pins
-- search_path = ''; these pin pg_catalog, pg_temp, since with pg_temp unlisted PostgreSQL looks
-- up type names there first, and a caller's temporary type named text, with casts of its own,
-- would run the caller's code with the owner's rights (TestStandInDefinersIgnoreTemporaryTypes).
-- What differs is the cipher: Vault encrypts with libsodium under a server key, and this stand-in
-- only encodes (the "encryption" functions return their input), since a scratch database holds
-- no secret. The column secret holds the base64 of the "ciphertext" as Vault's does.

CREATE FUNCTION vault._crypto_aead_det_noncegen() RETURNS bytea
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) $$;

CREATE FUNCTION vault._crypto_aead_det_encrypt(message bytea, additional bytea, key_id bigint,
  context bytea = 'pgsodium', nonce bytea = NULL) RETURNS bytea
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT $1 $$;

CREATE FUNCTION vault._crypto_aead_det_decrypt(message bytea, additional bytea, key_id bigint,
  context bytea = 'pgsodium', nonce bytea = NULL) RETURNS bytea
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT $1 $$;

CREATE TABLE vault.secrets (
  id          uuid PRIMARY KEY DEFAULT pg_catalog.gen_random_uuid(),
  name        text,
  description text NOT NULL DEFAULT '',
  secret      text NOT NULL,
  key_id      uuid,
  nonce       bytea DEFAULT vault._crypto_aead_det_noncegen(),
  created_at  timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX secrets_name_idx ON vault.secrets (name) WHERE name IS NOT NULL;
SELECT pg_catalog.pg_extension_config_dump('vault.secrets', '');

CREATE VIEW vault.decrypted_secrets AS
SELECT s.id, s.name, s.description, s.secret,
  pg_catalog.convert_from(vault._crypto_aead_det_decrypt(pg_catalog.decode(s.secret, 'base64'),
    pg_catalog.convert_to(s.id::text, 'utf8'), 0, 'pgsodium', s.nonce), 'utf8') AS decrypted_secret,
  s.key_id, s.nonce, s.created_at, s.updated_at
FROM vault.secrets s;

CREATE FUNCTION vault.create_secret(new_secret text, new_name text = NULL, new_description text = '',
  new_key_id uuid = NULL) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rec record;
BEGIN
  INSERT INTO vault.secrets (secret, name, description)
  VALUES (new_secret, new_name, new_description)
  RETURNING * INTO rec;
  UPDATE vault.secrets s
  SET secret = pg_catalog.encode(vault._crypto_aead_det_encrypt(pg_catalog.convert_to(rec.secret, 'utf8'),
    pg_catalog.convert_to(rec.id::text, 'utf8'), 0, 'pgsodium', rec.nonce), 'base64')
  WHERE s.id OPERATOR(pg_catalog.=) rec.id;
  RETURN rec.id;
END
$$;

CREATE FUNCTION vault.update_secret(secret_id uuid, new_secret text = NULL, new_name text = NULL,
  new_description text = NULL, new_key_id uuid = NULL) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  decrypted text;
BEGIN
  SELECT d.decrypted_secret INTO decrypted FROM vault.decrypted_secrets d
  WHERE d.id OPERATOR(pg_catalog.=) secret_id;
  UPDATE vault.secrets s
  SET secret = pg_catalog.encode(vault._crypto_aead_det_encrypt(
        pg_catalog.convert_to(coalesce(new_secret, decrypted), 'utf8'),
        pg_catalog.convert_to(s.id::text, 'utf8'), 0, 'pgsodium', s.nonce), 'base64'),
      name = coalesce(new_name, s.name),
      description = coalesce(new_description, s.description),
      updated_at = CURRENT_TIMESTAMP
  WHERE s.id OPERATOR(pg_catalog.=) secret_id;
END
$$;

REVOKE ALL ON FUNCTION vault._crypto_aead_det_noncegen(), vault._crypto_aead_det_encrypt(bytea, bytea, bigint, bytea, bytea),
  vault._crypto_aead_det_decrypt(bytea, bytea, bigint, bytea, bytea), vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid) FROM PUBLIC;
