-- Two decisions through the prerequisites, and a note on one of them.
INSERT INTO public.agent_memories (id, workspace_id, memory_type, summary, content) VALUES
  ('00000000-0000-4000-8000-000000000001', 'ws-alpha', 'decision', 'Advisory locks', 'Use advisory locks for the migration runner.'),
  ('00000000-0000-4000-8000-000000000002', 'ws-alpha', 'decision', 'SKIP LOCKED queue', 'Queue jobs with SKIP LOCKED.')
ON CONFLICT DO NOTHING;
INSERT INTO public.decision_notes (id, memory_id, note) VALUES
  (1, '00000000-0000-4000-8000-000000000001', 'Two runners raced on deploy.')
ON CONFLICT DO NOTHING;
