CREATE FUNCTION f(a int) RETURNS SETOF int LANGUAGE plpgsql AS $$
DECLARE
  x int := 1;
  v vector(3);
  r record;
BEGIN
  x := a + 1;
  IF x > 0 THEN
    DELETE FROM t
     WHERE id = a;
  END IF;
  FOR r IN SELECT id FROM t LOOP
    PERFORM pg_notify('c', r.id::text);
  END LOOP;
  EXECUTE 'ALTER TABLE t ADD COLUMN IF NOT EXISTS c int';
  EXECUTE format('DROP TABLE %I', a) USING a;
  RETURN QUERY EXECUTE 'SELECT 1';
  RETURN QUERY SELECT 2;
END $$;
