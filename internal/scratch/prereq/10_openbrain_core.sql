-- Open Brain core capture path: public.thoughts, upsert_thought, match_thoughts.
--
-- Prerequisite of the agent-memory schema and the decision ledger. Written from the facts in
-- the Open Brain repository, NateBJones-Projects/OB1 (the getting-started guide, step 2, and its idempotent
-- staging-base draft); no upstream SQL is reproduced.
--
-- Installed by ledgercheck as role postgres (not a superuser, like hosted Supabase's postgres role)
-- into each scratch database after migrations/env/. The embedding dimension is the psql-style
-- variable dim, written as a colon followed by the name; ledgercheck substitutes 1536 or 1024, and by hand
--   psql -v dim=1536 -v ON_ERROR_STOP=1 -f migrations/prereq/10_openbrain_core.sql
-- does the same. The variable appears only outside quotes and function bodies, where psql
-- interpolates it.
--
-- Idempotent: every statement either tests for existence or replaces in place.
--
-- Deliberately faithful to upstream, including what the ledger artifact does differently: these
-- functions do not pin search_path (upstream does not), so they resolve the vector type and the
-- <=> operator through the caller's search_path ("$user", public, extensions for postgres).

-- pgcrypto is already present on Supabase; upstream keeps the statement anyway (deploy notes).
-- Nothing below needs it: gen_random_uuid() and sha256() are core functions since PG 13 / 11.
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;

-- 1.1: the table. content_fingerprint arrives through ADD COLUMN as in guide step 2.6, so its
-- physical position (last) matches an upstream install.
CREATE TABLE IF NOT EXISTS public.thoughts (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  content    text NOT NULL,
  embedding  vector(:dim),
  metadata   jsonb DEFAULT '{}'::jsonb,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now()
);

ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS content_fingerprint text;

-- 1.2: indexes, named as in the staging-base draft.
CREATE INDEX IF NOT EXISTS thoughts_embedding_hnsw_idx
  ON public.thoughts USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS thoughts_metadata_gin_idx
  ON public.thoughts USING gin (metadata);
CREATE INDEX IF NOT EXISTS thoughts_created_at_desc_idx
  ON public.thoughts (created_at DESC);
CREATE UNIQUE INDEX IF NOT EXISTS idx_thoughts_fingerprint
  ON public.thoughts (content_fingerprint)
  WHERE content_fingerprint IS NOT NULL;

-- 1.3: updated_at maintenance. The function name is generic because other OB1 files reuse it.
CREATE OR REPLACE FUNCTION public.update_updated_at()
RETURNS trigger
LANGUAGE plpgsql
AS $fn$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$fn$;

DROP TRIGGER IF EXISTS thoughts_updated_at ON public.thoughts;
CREATE TRIGGER thoughts_updated_at
  BEFORE UPDATE ON public.thoughts
  FOR EACH ROW EXECUTE FUNCTION public.update_updated_at();

-- 1.4 and 1.5: capture with fingerprint dedup. The fingerprint is the hex SHA-256 of the content
-- with each whitespace run collapsed to one space, trimmed, lowercased. A duplicate keeps its
-- original content, created_at and embedding; only updated_at moves and the new metadata keys
-- are merged shallowly over the old ones (new keys win). Only payload.metadata is read.
CREATE OR REPLACE FUNCTION public.upsert_thought(p_content text, p_payload jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $fn$
DECLARE
  v_fingerprint text;
  v_metadata    jsonb := coalesce(p_payload -> 'metadata', '{}'::jsonb);
  v_id          uuid;
BEGIN
  v_fingerprint := encode(
    sha256(convert_to(lower(btrim(regexp_replace(p_content, '\s+', ' ', 'g'))), 'UTF8')),
    'hex');

  INSERT INTO public.thoughts AS t (content, content_fingerprint, metadata)
  VALUES (p_content, v_fingerprint, v_metadata)
  ON CONFLICT (content_fingerprint) WHERE content_fingerprint IS NOT NULL
  DO UPDATE SET updated_at = now(),
                metadata   = coalesce(t.metadata, '{}'::jsonb) || excluded.metadata
  RETURNING t.id INTO v_id;

  RETURN jsonb_build_object('id', v_id, 'fingerprint', v_fingerprint);
END;
$fn$;

-- 1.6: vector search. similarity = 1 - cosine distance, strictly above the threshold; rows
-- without an embedding drop out because the comparison is NULL.
CREATE OR REPLACE FUNCTION public.match_thoughts(
  query_embedding vector(:dim),
  match_threshold float DEFAULT 0.7,
  match_count     int DEFAULT 10,
  filter          jsonb DEFAULT '{}'
)
RETURNS TABLE (id uuid, content text, metadata jsonb, similarity float, created_at timestamptz)
LANGUAGE plpgsql
AS $fn$
BEGIN
  RETURN QUERY
  SELECT t.id,
         t.content,
         t.metadata,
         (1 - (t.embedding <=> query_embedding))::float AS similarity,
         t.created_at
  FROM public.thoughts AS t
  WHERE 1 - (t.embedding <=> query_embedding) > match_threshold
    AND (filter = '{}'::jsonb OR t.metadata @> filter)
  ORDER BY t.embedding <=> query_embedding
  LIMIT match_count;
END;
$fn$;

-- 1.7: RLS keyed on the JWT role claim (auth.role()), not on the database role; service_role
-- bypasses RLS anyway. Explicit grants, because new Supabase projects no longer grant table
-- privileges on new public tables to the API roles.
ALTER TABLE public.thoughts ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS "Service role full access" ON public.thoughts;
CREATE POLICY "Service role full access" ON public.thoughts
  FOR ALL
  USING (auth.role() = 'service_role')
  WITH CHECK (auth.role() = 'service_role');

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.thoughts TO service_role;
GRANT EXECUTE ON FUNCTION public.upsert_thought(text, jsonb) TO service_role;
GRANT EXECUTE ON FUNCTION public.match_thoughts(vector, float, int, jsonb) TO service_role;

NOTIFY pgrst, 'reload schema';
