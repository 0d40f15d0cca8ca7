DO LANGUAGE plperl $$ return 1; $$;
NOTIFY pgrst, 'reload schema';
