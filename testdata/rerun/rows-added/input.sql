-- A run journal: each run inserts the number of rows it finds, so every run adds a row that
-- repeats none of the earlier ones (rerun-rows-added).
CREATE TABLE IF NOT EXISTS public.decision_runs (
  n integer PRIMARY KEY
);
INSERT INTO public.decision_runs (n) SELECT count(*) FROM public.decision_runs;
