-- An index whose name is built at run time, hidden in a DO block's EXECUTE: the lock is the DO
-- statement's.
DO $idx$
DECLARE
  v_name text := 'idx_agent_memory_relations_created_' || 'case';
BEGIN
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.agent_memory_relations (created_at)', v_name);
END
$idx$;
