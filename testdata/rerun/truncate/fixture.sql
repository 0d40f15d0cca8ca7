-- Three tags users added after the install.
INSERT INTO public.decision_tags (memory_id, tag) VALUES
  ('00000000-0000-4000-8000-000000000001', 'locking'),
  ('00000000-0000-4000-8000-000000000001', 'migrations'),
  ('00000000-0000-4000-8000-000000000002', 'queue')
ON CONFLICT DO NOTHING;
