-- Suppressions that try to reach further than a reviewer can see. None of them may remove a
-- finding: a file-wide suppression that lists a security rule among others is refused whole;
-- a suppression inside a function body or a string literal is not a comment of the file.
-- ledgercheck:ignore-file not-idempotent, table-rls-disabled reviewed elsewhere
CREATE OR REPLACE FUNCTION public.smuggle() RETURNS int LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  -- ledgercheck:ignore table-rls-disabled, table-no-service-role-policy reviewed
  RETURN 1;
END $$;
REVOKE ALL ON FUNCTION public.smuggle() FROM PUBLIC;
SELECT '-- ledgercheck:ignore-file table-no-service-role-grant reviewed';
CREATE TABLE public.smuggled (id int);
NOTIFY pgrst, 'reload schema';
