CREATE OR REPLACE FUNCTION public.upsert_thought(p_content text, p_payload jsonb DEFAULT '{}')
RETURNS jsonb LANGUAGE sql SET search_path = public AS $$ SELECT '{}'::jsonb $$;
GRANT EXECUTE ON FUNCTION public.upsert_thought(text, jsonb) TO service_role;
NOTIFY pgrst, 'reload schema';
