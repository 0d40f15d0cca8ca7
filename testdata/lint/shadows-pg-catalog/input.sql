-- Shadows of pg_catalog that a privileged reader with the default search_path would run.
-- An exact argument match in public beats pg_catalog.quote_ident(text) for a name argument.
CREATE OR REPLACE FUNCTION public.quote_ident(name) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.quote_ident($1::text) $$;
REVOKE EXECUTE ON FUNCTION public.quote_ident(name) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.quote_ident(name) TO service_role;
-- pg_catalog.unnest(anyarray) loses to an exact oid[].
CREATE OR REPLACE FUNCTION public.unnest(oid[]) RETURNS SETOF oid
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.unnest($1) $$;
REVOKE EXECUTE ON FUNCTION public.unnest(oid[]) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.unnest(oid[]) TO service_role;
-- A schema named after a privileged role: "$user" puts it first on that role's path.
CREATE SCHEMA IF NOT EXISTS supabase_admin;
CREATE OR REPLACE FUNCTION supabase_admin.md5(text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.md5($1) $$;
REVOKE EXECUTE ON FUNCTION supabase_admin.md5(text) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION supabase_admin.md5(text) TO service_role;
-- Operators: an exact (oid, integer) beats pg_catalog's = through a cast; && on text[].
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = integer, FUNCTION = pg_catalog.int4eq);
CREATE OPERATOR public.&& (LEFTARG = text[], RIGHTARG = text[], FUNCTION = pg_catalog.arrayoverlap);
-- An aggregate is called like a function: string_agg(text, text) loses to an exact (name, text).
CREATE OR REPLACE AGGREGATE public.string_agg(name, text) (SFUNC = pg_catalog.textcat, STYPE = text);
REVOKE EXECUTE ON FUNCTION public.string_agg(name, text) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.string_agg(name, text) TO service_role;
-- A prefix operator of pg_catalog's name.
CREATE OPERATOR public.- (RIGHTARG = oid, FUNCTION = pg_catalog.int4um);
-- to_json(row) of a table with a column of this type calls the cast.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type WHERE typname = 'ledger_mood' AND typnamespace = 'public'::regnamespace) THEN
    CREATE TYPE public.ledger_mood AS ENUM ('calm', 'busy');
  END IF;
END $$;
CREATE OR REPLACE FUNCTION public.ledger_mood_json(public.ledger_mood) RETURNS json
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.to_json($1::text) $$;
REVOKE EXECUTE ON FUNCTION public.ledger_mood_json(public.ledger_mood) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.ledger_mood_json(public.ledger_mood) TO service_role;
CREATE CAST (public.ledger_mood AS json) WITH FUNCTION public.ledger_mood_json(public.ledger_mood);

-- Not shadows: a name of the sidecar's own, a schema on no reader's path, a cast without a
-- function of its own, an operator name pg_catalog does not have.
CREATE OR REPLACE FUNCTION public.ledger_quote(name) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.quote_ident($1::text) $$;
REVOKE EXECUTE ON FUNCTION public.ledger_quote(name) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION public.ledger_quote(name) TO service_role;
CREATE SCHEMA IF NOT EXISTS ledger_private;
CREATE OR REPLACE FUNCTION ledger_private.quote_ident(name) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$ SELECT pg_catalog.quote_ident($1::text) $$;
REVOKE EXECUTE ON FUNCTION ledger_private.quote_ident(name) FROM PUBLIC, anon, authenticated; GRANT EXECUTE ON FUNCTION ledger_private.quote_ident(name) TO service_role;
CREATE CAST (public.ledger_mood AS jsonb) WITH INOUT;
CREATE OPERATOR public.=~= (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.texteq);
NOTIFY pgrst, 'reload schema';
