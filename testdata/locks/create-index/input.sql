-- A recall sidecar that needs thoughts by update time: CREATE INDEX without CONCURRENTLY takes
-- SHARE on thoughts for the whole build, so no thought is captured meanwhile.
SET lock_timeout = '3s';
CREATE INDEX IF NOT EXISTS thoughts_updated_at_case_idx ON public.thoughts (updated_at DESC);
