-- Version 2 adds the verdict, safely for an upgrade. The fixture is written for version 2, so it
-- does not load over version 1 (upgrade-fixture-failed): the upgrade audit needs data stored the
-- way the previous version stored it.
CREATE TABLE IF NOT EXISTS public.decision_reviews (
  id integer PRIMARY KEY
);
ALTER TABLE public.decision_reviews ADD COLUMN IF NOT EXISTS verdict text;
