-- The migration names the column "outcome"; the fixture still writes "verdict", so it does not
-- load over the migration (rerun-fixture-failed).
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id      integer PRIMARY KEY,
  outcome text NOT NULL
);
