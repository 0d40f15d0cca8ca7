DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'r') THEN
    CREATE ROLE r NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN
  NULL;
END $$;
