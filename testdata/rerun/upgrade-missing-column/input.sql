-- Version 2 adds the note inside CREATE TABLE IF NOT EXISTS: a fresh install has it, but over
-- version 1 the statement is skipped, so the upgraded table lacks it (upgrade-missing-object).
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id   integer PRIMARY KEY,
  note text
);
