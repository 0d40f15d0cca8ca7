-- Two reviews.
INSERT INTO public.decision_reviews (id, memory_id, verdict, reviewed_at) VALUES
  (1, '00000000-0000-4000-8000-000000000001', 'keep', '2026-05-01 10:00+00'),
  (2, '00000000-0000-4000-8000-000000000002', 'revisit', '2026-05-02 10:00+00')
ON CONFLICT DO NOTHING;
