-- Version 2 replaces the labels table with an enum type and drops the table without moving its
-- rows anywhere. Safe to run again (and a fresh install has the same catalog as an upgrade),
-- but the upgrade loses every label.
DROP TABLE IF EXISTS public.decision_labels;

DO $$
BEGIN
  CREATE TYPE public.decision_label AS ENUM ('urgent', 'later');
EXCEPTION WHEN duplicate_object THEN
  NULL;
END
$$;

NOTIFY pgrst, 'reload schema';
