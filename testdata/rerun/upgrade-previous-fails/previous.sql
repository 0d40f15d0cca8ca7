-- Version 1 references a table that no longer exists anywhere, so it does not install on a fresh
-- database and no upgrade from it can be checked (upgrade-previous-failed).
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id        integer PRIMARY KEY,
  decision  integer REFERENCES public.decisions (id)
);
