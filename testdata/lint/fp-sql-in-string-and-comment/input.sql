CREATE TABLE IF NOT EXISTS public.ledger (id uuid PRIMARY KEY, step int);
ALTER TABLE public.ledger ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ledger_service_role_all ON public.ledger;
CREATE POLICY ledger_service_role_all ON public.ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.ledger TO service_role;
-- ALTER TABLE public.thoughts ADD COLUMN x int; DROP TABLE public.thoughts;
/* TRUNCATE public.agent_memories; DELETE FROM public.thoughts; */
COMMENT ON COLUMN public.ledger.step IS 'never ALTER TABLE thoughts; never DELETE FROM thoughts';
INSERT INTO public.ledger (id, step) SELECT gen_random_uuid(), length('DROP TABLE thoughts') ON CONFLICT DO NOTHING;
NOTIFY pgrst, 'reload schema';
