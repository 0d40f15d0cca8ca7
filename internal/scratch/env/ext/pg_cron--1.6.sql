-- ledgercheck's stand-in for pg_cron 1.6 (facts: the sources docs/supabase-environment.md lists,
-- §1; README.md beside this file says why it is a stand-in). Written for ledgercheck from those
-- facts, not pg_cron's SQL. The objects, their types, signatures, defaults, grants and row level
-- security are pg_cron 1.6's; the functions pg_cron writes in C are PL/pgSQL here, and nothing
-- ever runs a job: there is no module, so no launcher and no background worker.
--
-- Every function pins search_path = pg_catalog, pg_temp: with pg_temp unlisted, PostgreSQL looks
-- up type names there first, and a caller's temporary type could then run its casts with the
-- definer's rights (TestStandInDefinersIgnoreTemporaryTypes).
--
-- Differences from pg_cron, all of them in how a function does its work, none in its interface:
--   * the writing functions are SECURITY DEFINER (pg_cron's C code writes cron.job whatever the
--     caller's privileges; on Supabase postgres may only SELECT it), and take the caller to be
--     the session's role (SET ROLE or, without one, the session user), where pg_cron takes the
--     current user: a call from inside another SECURITY DEFINER function is attributed to the
--     session, not to that function's owner;
--   * only a superuser may name another role as a job's user (schedule_in_database, alter_job;
--     pg_cron's wording of the refusal is inferred);
--   * cron.schedule checks the schedule's shape (five fields, '@daily' and the like, or
--     '[1-59] seconds'), not each field's range;
--   * pg_cron refuses CREATE EXTENSION outside cron.database_name; with no launcher there is no
--     database to refuse for, so the template databases of every run carry the extension.

CREATE SCHEMA cron;

CREATE SEQUENCE cron.jobid_seq;
CREATE SEQUENCE cron.runid_seq;

CREATE TABLE cron.job (
  jobid    bigint PRIMARY KEY DEFAULT pg_catalog.nextval('cron.jobid_seq'),
  schedule text NOT NULL,
  command  text NOT NULL,
  nodename text NOT NULL DEFAULT 'localhost',
  nodeport integer NOT NULL DEFAULT pg_catalog.inet_server_port(),
  database text NOT NULL DEFAULT pg_catalog.current_database(),
  username text NOT NULL DEFAULT CURRENT_USER,
  active   boolean NOT NULL DEFAULT true,
  jobname  text,
  CONSTRAINT jobname_username_uniq UNIQUE (jobname, username)
);
ALTER SEQUENCE cron.jobid_seq OWNED BY cron.job.jobid;
ALTER TABLE cron.job ENABLE ROW LEVEL SECURITY;
CREATE POLICY cron_job_policy ON cron.job USING (username OPERATOR(pg_catalog.=) CURRENT_USER);
GRANT SELECT ON cron.job TO PUBLIC;

CREATE TABLE cron.job_run_details (
  jobid          bigint,
  runid          bigint PRIMARY KEY DEFAULT pg_catalog.nextval('cron.runid_seq'),
  job_pid        integer,
  database       text,
  username       text,
  command        text,
  status         text,
  return_message text,
  start_time     timestamptz,
  end_time       timestamptz
);
ALTER SEQUENCE cron.runid_seq OWNED BY cron.job_run_details.runid;
ALTER TABLE cron.job_run_details ENABLE ROW LEVEL SECURITY;
CREATE POLICY cron_job_run_details_policy ON cron.job_run_details
  USING (username OPERATOR(pg_catalog.=) CURRENT_USER);
GRANT SELECT, DELETE ON cron.job_run_details TO PUBLIC;
GRANT SELECT ON SEQUENCE cron.jobid_seq, cron.runid_seq TO PUBLIC;

SELECT pg_catalog.pg_extension_config_dump('cron.job', '');
SELECT pg_catalog.pg_extension_config_dump('cron.job_run_details', '');
SELECT pg_catalog.pg_extension_config_dump('cron.jobid_seq', '');
SELECT pg_catalog.pg_extension_config_dump('cron.runid_seq', '');

-- pg_cron's trigger tells its launcher to reload the jobs; there is no launcher.
CREATE FUNCTION cron.job_cache_invalidate() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER cron_job_cache_invalidate
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON cron.job
  FOR EACH STATEMENT EXECUTE FUNCTION cron.job_cache_invalidate();

-- The role a call is attributed to (see above), and the schedule's shape.
CREATE FUNCTION cron._ledgercheck_caller() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN pg_catalog.current_setting('role') OPERATOR(pg_catalog.=) 'none'
    THEN SESSION_USER::text ELSE pg_catalog.current_setting('role') END
$$;

CREATE FUNCTION cron._ledgercheck_caller_is_superuser() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce((SELECT r.rolsuper FROM pg_catalog.pg_roles r
    WHERE r.rolname OPERATOR(pg_catalog.=) cron._ledgercheck_caller()), false)
$$;

CREATE FUNCTION cron._ledgercheck_check_schedule(schedule text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF $1 OPERATOR(pg_catalog.~*) '^\s*(@(yearly|annually|monthly|weekly|daily|hourly|reboot)|[1-5]?[0-9]\s+seconds?|([0-9a-z*,/$-]+\s+){4}[0-9a-z*,/$-]+)\s*$'
     AND $1 OPERATOR(pg_catalog.!~*) '^\s*0+\s+seconds?\s*$' THEN
    RETURN;
  END IF;
  RAISE EXCEPTION 'invalid schedule: %', $1
    USING HINT = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
END
$$;

CREATE FUNCTION cron._ledgercheck_schedule(job_name text, schedule text, command text, database text,
  username text, active boolean) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  id bigint;
BEGIN
  IF $2 IS NULL THEN RAISE EXCEPTION 'schedule can not be null'; END IF;
  IF $3 IS NULL THEN RAISE EXCEPTION 'command can not be null'; END IF;
  PERFORM cron._ledgercheck_check_schedule($2);
  IF $5 OPERATOR(pg_catalog.<>) cron._ledgercheck_caller() AND NOT cron._ledgercheck_caller_is_superuser() THEN
    RAISE EXCEPTION 'must be superuser to create a job for another role';
  END IF;
  IF $1 IS NULL THEN
    INSERT INTO cron.job (schedule, command, nodename, nodeport, database, username, active)
    VALUES ($2, $3, 'localhost', pg_catalog.current_setting('port')::integer, $4, $5, $6)
    RETURNING jobid INTO id;
  ELSE
    INSERT INTO cron.job (jobname, schedule, command, nodename, nodeport, database, username, active)
    VALUES ($1, $2, $3, 'localhost', pg_catalog.current_setting('port')::integer, $4, $5, $6)
    ON CONFLICT ON CONSTRAINT jobname_username_uniq DO UPDATE
      SET schedule = excluded.schedule, command = excluded.command, database = excluded.database,
          active = excluded.active
    RETURNING jobid INTO id;
  END IF;
  RETURN id;
END
$$;
REVOKE ALL ON FUNCTION cron._ledgercheck_schedule(text, text, text, text, text, boolean) FROM PUBLIC;

CREATE FUNCTION cron.schedule(schedule text, command text) RETURNS bigint
LANGUAGE plpgsql STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN cron._ledgercheck_schedule(NULL, $1, $2, pg_catalog.current_database(), cron._ledgercheck_caller(), true);
END
$$;

CREATE FUNCTION cron.schedule(job_name text, schedule text, command text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN cron._ledgercheck_schedule($1, $2, $3, pg_catalog.current_database(), cron._ledgercheck_caller(), true);
END
$$;

CREATE FUNCTION cron.schedule_in_database(job_name text, schedule text, command text, database text,
  username text DEFAULT NULL, active boolean DEFAULT 'true') RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF $4 IS NULL THEN RAISE EXCEPTION 'database can not be null'; END IF;
  RETURN cron._ledgercheck_schedule($1, $2, $3, $4, coalesce($5, cron._ledgercheck_caller()), coalesce($6, true));
END
$$;
REVOKE ALL ON FUNCTION cron.schedule_in_database(text, text, text, text, text, boolean) FROM PUBLIC;

CREATE FUNCTION cron._ledgercheck_unschedule(job_id bigint, job_name text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
  DELETE FROM cron.job j
  WHERE (CASE WHEN $2 IS NULL THEN j.jobid OPERATOR(pg_catalog.=) $1 ELSE j.jobname OPERATOR(pg_catalog.=) $2 END)
    AND (j.username OPERATOR(pg_catalog.=) cron._ledgercheck_caller() OR cron._ledgercheck_caller_is_superuser());
  IF NOT FOUND THEN
    IF $2 IS NULL THEN
      RAISE EXCEPTION 'could not find valid entry for job %', $1;
    END IF;
    RAISE EXCEPTION 'could not find valid entry for job ''%''', $2;
  END IF;
  RETURN true;
END
$$;
REVOKE ALL ON FUNCTION cron._ledgercheck_unschedule(bigint, text) FROM PUBLIC;

CREATE FUNCTION cron.unschedule(job_id bigint) RETURNS boolean
LANGUAGE plpgsql STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$ BEGIN RETURN cron._ledgercheck_unschedule($1, NULL); END $$;

CREATE FUNCTION cron.unschedule(job_name text) RETURNS boolean
LANGUAGE plpgsql STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$ BEGIN RETURN cron._ledgercheck_unschedule(NULL, $1); END $$;

CREATE FUNCTION cron.alter_job(job_id bigint, schedule text DEFAULT NULL, command text DEFAULT NULL,
  database text DEFAULT NULL, username text DEFAULT NULL, active boolean DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
  IF $2 IS NOT NULL THEN PERFORM cron._ledgercheck_check_schedule($2); END IF;
  IF $5 OPERATOR(pg_catalog.<>) cron._ledgercheck_caller() AND NOT cron._ledgercheck_caller_is_superuser() THEN
    RAISE EXCEPTION 'must be superuser to alter username';
  END IF;
  UPDATE cron.job j
  SET schedule = coalesce($2, j.schedule), command = coalesce($3, j.command),
      database = coalesce($4, j.database), username = coalesce($5, j.username),
      active = coalesce($6, j.active)
  WHERE j.jobid OPERATOR(pg_catalog.=) $1
    AND (j.username OPERATOR(pg_catalog.=) cron._ledgercheck_caller() OR cron._ledgercheck_caller_is_superuser());
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Job % does not exist or you don''t own it', $1;
  END IF;
END
$$;
REVOKE ALL ON FUNCTION cron.alter_job(bigint, text, text, text, text, boolean) FROM PUBLIC;
