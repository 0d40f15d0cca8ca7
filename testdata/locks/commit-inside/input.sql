-- Locks taken and released inside one statement: a DO block and a procedure that COMMIT. The
-- trace reads after each statement, in a transaction begun after the lock went; the server's
-- own clock (pg_stat_activity) says the statement ended its transaction.
DO $touch$
BEGIN
  COMMIT;
  EXECUTE format('LOCK TABLE %I.%I IN ACCESS EXCLUSIVE MODE', 'public', 'thoughts');
  COMMIT;
END
$touch$;

CREATE OR REPLACE PROCEDURE public.lc_case_backfill()
LANGUAGE plpgsql
AS $$
BEGIN
  LOCK TABLE public.agent_memories IN SHARE MODE;
  ROLLBACK;
END
$$;
CALL public.lc_case_backfill();

-- A DO block that ends nothing: its locks are read as before.
DO $plain$
BEGIN
  EXECUTE format('LOCK TABLE %I.%I IN ROW EXCLUSIVE MODE', 'public', 'thoughts');
END
$plain$;
