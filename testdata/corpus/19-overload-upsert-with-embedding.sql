-- One-round-trip capture: upsert_thought with the embedding in the same call.
--
-- The stock capture path writes a thought in two requests (upsert_thought, then an UPDATE of
-- thoughts.embedding). For a local brain that computes the embedding first, this overload does
-- both at once; same fingerprint rule and same return value ({id, fingerprint}) as the original.
-- The original upsert_thought(text, jsonb) is left exactly as it is.

CREATE OR REPLACE FUNCTION public.upsert_thought(
  p_content   text,
  p_embedding vector(1536),
  p_metadata  jsonb DEFAULT '{}'
)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
  v_fingerprint text;
  v_id uuid;
BEGIN
  v_fingerprint := encode(sha256(convert_to(lower(btrim(regexp_replace(p_content, '\s+', ' ', 'g'))), 'UTF8')), 'hex');

  INSERT INTO public.thoughts AS t (content, content_fingerprint, embedding, metadata)
  VALUES (p_content, v_fingerprint, p_embedding, coalesce(p_metadata, '{}'::jsonb))
  ON CONFLICT (content_fingerprint) WHERE content_fingerprint IS NOT NULL
  DO UPDATE SET updated_at = now(),
                embedding  = coalesce(excluded.embedding, t.embedding),
                metadata   = coalesce(t.metadata, '{}'::jsonb) || excluded.metadata
  RETURNING t.id INTO v_id;

  RETURN jsonb_build_object('id', v_id, 'fingerprint', v_fingerprint);
END;
$$;

NOTIFY pgrst, 'reload schema';
