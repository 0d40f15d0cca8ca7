-- A sidecar that marks thoughts as pinned. The column has no default, so PostgreSQL changes the
-- catalog only, but under ACCESS EXCLUSIVE: on a thoughts table with production's 2.1 M rows
-- every capture and every search queues behind it.
ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS pinned boolean;
NOTIFY pgrst, 'reload schema';
