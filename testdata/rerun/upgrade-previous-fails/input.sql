-- Version 2 stands on its own.
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id integer PRIMARY KEY
);
