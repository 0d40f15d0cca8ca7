DO $$
BEGIN
  EXECUTE 'alter table thoughts '
       || 'add column if not exists ledger_step int';
END $$;
NOTIFY pgrst, 'reload schema';
