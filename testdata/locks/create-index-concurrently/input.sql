-- The corrected create-index: CONCURRENTLY builds the index without blocking writes (it takes
-- SHARE UPDATE EXCLUSIVE and commits as it goes, so nothing is held once it returns).
SET lock_timeout = '3s';
CREATE INDEX CONCURRENTLY IF NOT EXISTS thoughts_created_day_case_idx ON public.thoughts (created_at);
