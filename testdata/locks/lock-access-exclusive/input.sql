-- A sidecar that keeps a relevance score on the core thoughts table, seeded at random so that
-- new rows spread evenly: a volatile default rewrites the whole table under ACCESS EXCLUSIVE.
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS triage_score double precision DEFAULT random();
CREATE INDEX IF NOT EXISTS thoughts_triage_score_case_idx ON public.thoughts (triage_score);
NOTIFY pgrst, 'reload schema';
