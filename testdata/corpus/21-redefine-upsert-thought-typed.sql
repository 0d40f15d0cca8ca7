-- Typed thoughts: promote the most-used metadata keys to real columns on public.thoughts
-- (type, source_type, importance, status) and teach upsert_thought to fill them.
--
-- Filtering on metadata->>'type' works but cannot use a plain b-tree; columns can. The upsert
-- keeps its signature, (text, jsonb), so the MCP server needs no change.
--
-- Prerequisites: core capture path. Re-runnable.

BEGIN;

ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS type text;
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS source_type text;
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS importance smallint;
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS status text;
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS status_updated_at timestamptz;

CREATE INDEX IF NOT EXISTS thoughts_type_status_idx ON public.thoughts (type, status);

-- Same fingerprint and conflict rule as before; the new columns come from metadata and, on a
-- duplicate, only overwrite when the new capture says something.
CREATE OR REPLACE FUNCTION public.upsert_thought(p_content text, p_payload jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
  v_meta        jsonb := coalesce(p_payload -> 'metadata', '{}'::jsonb);
  v_fingerprint text;
  v_type        text;
  v_source      text;
  v_importance  smallint;
  v_status      text;
  v_id          uuid;
BEGIN
  v_fingerprint := encode(sha256(convert_to(lower(btrim(regexp_replace(p_content, '\s+', ' ', 'g'))), 'UTF8')), 'hex');
  v_type := coalesce(v_meta ->> 'type', 'observation');
  v_source := coalesce(v_meta ->> 'source_type', v_meta ->> 'source', 'unknown');
  v_importance := CASE WHEN v_meta ->> 'importance' ~ '^\d{1,3}$'
                       THEN least((v_meta ->> 'importance')::int, 100) END;
  v_status := coalesce(p_payload ->> 'status', v_meta ->> 'status',
                       CASE WHEN v_type IN ('task', 'idea') THEN 'new' END);

  INSERT INTO public.thoughts AS t (content, content_fingerprint, metadata, type, source_type,
                                    importance, status, status_updated_at)
  VALUES (p_content, v_fingerprint, v_meta, v_type, v_source, v_importance, v_status,
          CASE WHEN v_status IS NOT NULL THEN now() END)
  ON CONFLICT (content_fingerprint) WHERE content_fingerprint IS NOT NULL
  DO UPDATE SET updated_at        = now(),
                metadata          = coalesce(t.metadata, '{}'::jsonb) || excluded.metadata,
                type              = coalesce(excluded.type, t.type),
                source_type       = coalesce(excluded.source_type, t.source_type),
                importance        = coalesce(excluded.importance, t.importance),
                status            = coalesce(excluded.status, t.status),
                status_updated_at = CASE WHEN excluded.status IS DISTINCT FROM t.status
                                         AND excluded.status IS NOT NULL
                                         THEN now() ELSE t.status_updated_at END
  RETURNING t.id INTO v_id;

  RETURN jsonb_build_object('id', v_id, 'fingerprint', v_fingerprint);
END;
$$;

NOTIFY pgrst, 'reload schema';

COMMIT;
