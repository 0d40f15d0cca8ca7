-- Corpus environment stub: the part of pg_cron's SQL interface that corpus files call.
-- pg_cron is not installed on the scratch server, so this stands in for it: schema cron, the job
-- table, and schedule/unschedule with pg_cron's signatures and upsert-by-name behaviour. Nothing
-- ever runs a job. Written for this corpus from pg_cron's documented interface.
--
-- Run as a superuser after the Supabase environment, before a corpus file that lists
-- `env/pg_cron.sql` under `needs`. Idempotent.
--
-- Behaviour kept from pg_cron because the labels depend on it:
--   * cron.schedule(job_name, schedule, command) updates the job of that name (for the same user)
--     if there is one, so a named schedule is safe to rerun;
--   * cron.schedule(schedule, command) always inserts a new job, so rerunning a file that calls it
--     leaves one more job each time.

CREATE SCHEMA IF NOT EXISTS cron;
GRANT USAGE ON SCHEMA cron TO postgres;

CREATE TABLE IF NOT EXISTS cron.job (
  jobid    bigserial PRIMARY KEY,
  schedule text NOT NULL,
  command  text NOT NULL,
  nodename text NOT NULL DEFAULT 'localhost',
  nodeport integer NOT NULL DEFAULT 5432,
  database text NOT NULL DEFAULT current_database(),
  username text NOT NULL DEFAULT current_user,
  active   boolean NOT NULL DEFAULT true,
  jobname  text
);
CREATE UNIQUE INDEX IF NOT EXISTS job_jobname_username_uniq ON cron.job (jobname, username);
GRANT SELECT ON cron.job TO postgres;

CREATE OR REPLACE FUNCTION cron.schedule(schedule text, command text)
RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = ''
AS $$
  INSERT INTO cron.job (schedule, command, username)
  VALUES (schedule, command, session_user)
  RETURNING jobid;
$$;

CREATE OR REPLACE FUNCTION cron.schedule(job_name text, schedule text, command text)
RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = ''
AS $$
  INSERT INTO cron.job (jobname, schedule, command, username)
  VALUES (job_name, schedule, command, session_user)
  ON CONFLICT (jobname, username) DO UPDATE
    SET schedule = excluded.schedule, command = excluded.command, active = true
  RETURNING jobid;
$$;

CREATE OR REPLACE FUNCTION cron.unschedule(job_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
  DELETE FROM cron.job WHERE jobid = job_id AND username = session_user;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'could not find valid entry for job %', job_id;
  END IF;
  RETURN true;
END;
$$;

CREATE OR REPLACE FUNCTION cron.unschedule(job_name text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
  DELETE FROM cron.job WHERE jobname = job_name AND username = session_user;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'could not find valid entry for job ''%''', job_name;
  END IF;
  RETURN true;
END;
$$;

REVOKE ALL ON FUNCTION cron.schedule(text, text), cron.schedule(text, text, text),
  cron.unschedule(bigint), cron.unschedule(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cron.schedule(text, text), cron.schedule(text, text, text),
  cron.unschedule(bigint), cron.unschedule(text) TO postgres;
