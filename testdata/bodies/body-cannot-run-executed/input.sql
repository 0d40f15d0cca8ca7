-- Note lookups that build their SQL at run time. plpgsql_check reads the expression that builds
-- each statement, not the statement: the misspelt column and the misspelt table below are found
-- by calling the functions (twice, with different generated arguments, rolled back), where the
-- EXECUTE fails the same way whatever they are given. A column the caller names fails
-- differently with each argument, and is not a finding; nor is SQL that runs.
BEGIN;
CREATE TABLE IF NOT EXISTS public.lc_notes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind       text NOT NULL,
  body       text NOT NULL
);
ALTER TABLE public.lc_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_notes_service_role_all ON public.lc_notes;
CREATE POLICY lc_notes_service_role_all ON public.lc_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.lc_notes TO service_role;

-- ledgercheck:ignore dynamic-sql the filter is assembled from its clauses
CREATE OR REPLACE FUNCTION public.lc_count_kind(p_kind text) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v bigint;
  q text := 'SELECT count(*) FROM public.lc_notes n';
BEGIN
  q := q || ' WHERE n.knd = $1';
  EXECUTE q INTO v USING p_kind;
  RETURN v;
END;
$$;

-- A function plpgsql_check already finds unable to run (a static statement misspells body) is
-- not called: its finding is plpgsql_check's alone.
-- ledgercheck:ignore dynamic-sql the filter is assembled from its clauses
CREATE OR REPLACE FUNCTION public.lc_first_body(p_kind text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v text;
  q text := 'SELECT n.body FROM public.lc_notes n';
BEGIN
  SELECT n.bdy INTO v FROM public.lc_notes n ORDER BY n.id LIMIT 1;
  q := q || ' WHERE n.knd = $1 ORDER BY n.id LIMIT 1';
  EXECUTE q INTO v USING p_kind;
  RETURN v;
END;
$$;

-- ledgercheck:ignore dynamic-sql the query is assembled from its clauses
CREATE OR REPLACE FUNCTION public.lc_latest(p_limit integer) RETURNS SETOF text
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  q text := 'SELECT n.body FROM public.lc_note n';
BEGIN
  q := q || ' ORDER BY n.id DESC LIMIT $1';
  RETURN QUERY EXECUTE q USING p_limit;
END;
$$;

-- ledgercheck:ignore dynamic-sql the caller names the column, quoted by %I
CREATE OR REPLACE FUNCTION public.lc_count_nonempty(p_column text) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v bigint;
BEGIN
  EXECUTE pg_catalog.format('SELECT count(*) FROM public.lc_notes n WHERE n.%I IS NOT NULL', p_column) INTO v;
  RETURN v;
END;
$$;

-- ledgercheck:ignore dynamic-sql the column is a constant of the template
CREATE OR REPLACE FUNCTION public.lc_count_body(p_body text) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v bigint;
BEGIN
  EXECUTE pg_catalog.format('SELECT count(*) FROM public.lc_notes n WHERE n.%I = $1', 'body') INTO v USING p_body;
  RETURN v;
END;
$$;

-- ledgercheck:ignore dynamic-sql the table is the argument's own
CREATE OR REPLACE FUNCTION public.lc_count_rows(p_row anyelement) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  v bigint;
BEGIN
  EXECUTE pg_catalog.format('SELECT count(*) FROM public.%I', pg_catalog.pg_typeof(p_row)) INTO v;
  RETURN v;
END;
$$;

-- A history kept by a trigger, which names the history table after the table it is on: the
-- column list misspells body. Every insert into lc_notes fails; firing the trigger with generated
-- rows shows it. The same trigger with the right column, on lc_tags, is not a finding.
CREATE TABLE IF NOT EXISTS public.lc_notes_history (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  note_id bigint NOT NULL,
  body    text NOT NULL
);
ALTER TABLE public.lc_notes_history ENABLE ROW LEVEL SECURITY;
CREATE TABLE IF NOT EXISTS public.lc_tags (
  id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  body text NOT NULL
);
ALTER TABLE public.lc_tags ENABLE ROW LEVEL SECURITY;
CREATE TABLE IF NOT EXISTS public.lc_tags_history (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  note_id bigint NOT NULL,
  body    text NOT NULL
);
ALTER TABLE public.lc_tags_history ENABLE ROW LEVEL SECURITY;
-- ledgercheck:ignore dynamic-sql the history table is named after the table the trigger is on
CREATE OR REPLACE FUNCTION public.lc_keep_history() RETURNS trigger
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  EXECUTE pg_catalog.format('INSERT INTO %I.%I (note_id, bdy) VALUES ($1, $2)', TG_TABLE_SCHEMA, TG_TABLE_NAME || '_history')
    USING NEW.id, NEW.body;
  RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS lc_notes_keep_history ON public.lc_notes;
CREATE TRIGGER lc_notes_keep_history AFTER INSERT ON public.lc_notes
  FOR EACH ROW EXECUTE FUNCTION public.lc_keep_history();
-- ledgercheck:ignore dynamic-sql the history table is named after the table the trigger is on
CREATE OR REPLACE FUNCTION public.lc_keep_tag_history() RETURNS trigger
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  EXECUTE pg_catalog.format('INSERT INTO %I.%I (note_id, body) VALUES ($1, $2)', TG_TABLE_SCHEMA, TG_TABLE_NAME || '_history')
    USING NEW.id, NEW.body;
  RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS lc_tags_keep_history ON public.lc_tags;
CREATE TRIGGER lc_tags_keep_history AFTER INSERT ON public.lc_tags
  FOR EACH ROW EXECUTE FUNCTION public.lc_keep_tag_history();
REVOKE ALL ON FUNCTION public.lc_keep_history(), public.lc_keep_tag_history() FROM PUBLIC, anon, authenticated;

REVOKE ALL ON FUNCTION public.lc_first_body(text), public.lc_count_kind(text), public.lc_latest(integer), public.lc_count_nonempty(text),
  public.lc_count_body(text), public.lc_count_rows(anyelement) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.lc_first_body(text), public.lc_count_kind(text), public.lc_latest(integer), public.lc_count_nonempty(text),
  public.lc_count_body(text), public.lc_count_rows(anyelement) TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
