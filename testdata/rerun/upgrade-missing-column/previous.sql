-- Version 1: reviews without a note.
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id integer PRIMARY KEY
);
