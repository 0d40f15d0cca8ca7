-- Two notes; only the columns both versions have.
INSERT INTO public.decision_notes (id, memory_id, updated_at) VALUES
  (1, '00000000-0000-4000-8000-000000000001', '2026-05-01 10:00+00'),
  (2, '00000000-0000-4000-8000-000000000002', '2026-05-02 10:00+00')
ON CONFLICT DO NOTHING;
