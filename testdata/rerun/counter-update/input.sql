-- Decision counters. The migration seeds them, then "resets the counts" with an UPDATE that
-- bumps every row again on each rerun: the audit names the table, the changed column with a few
-- rows' values before and after, and the UPDATE.
CREATE TABLE IF NOT EXISTS public.decision_counters (
  name        text PRIMARY KEY,
  hits        integer NOT NULL,
  touched_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO public.decision_counters (name, hits)
VALUES ('alpha', 0), ('beta', 0), ('gamma', 0), ('delta', 0)
ON CONFLICT (name) DO NOTHING;

UPDATE public.decision_counters SET hits = hits + 1;
