INSERT INTO public.decision_reviews (id, verdict) VALUES (1, 'keep') ON CONFLICT DO NOTHING;
