-- Another sidecar's table that notes.sql references: listed under prerequisites.files, it runs
-- in every scratch database before notes.sql (tests in internal/gate and internal/cli; the
-- README's "A sidecar of your own" writes the same two files).
CREATE TABLE IF NOT EXISTS public.tags (id bigint PRIMARY KEY, name text NOT NULL);
