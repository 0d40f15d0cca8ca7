-- Version 1 keeps decision labels in a table, seeded with two labels.
CREATE TABLE IF NOT EXISTS public.decision_labels (
  name   text PRIMARY KEY,
  color  text NOT NULL
);
INSERT INTO public.decision_labels (name, color) VALUES ('urgent', 'red'), ('later', 'grey')
ON CONFLICT DO NOTHING;

NOTIFY pgrst, 'reload schema';
