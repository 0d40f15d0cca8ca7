-- ledgercheck's stand-in for pg_net 0.20.4 (facts: the sources docs/supabase-environment.md lists,
-- §2; README.md beside this file says why it is a stand-in). Written for ledgercheck from those
-- facts, not pg_net's SQL. Schema net, its types, its two UNLOGGED tables, and the functions with
-- pg_net's signatures, defaults and grants (since 0.12.0: USAGE on net and ALL on its tables and
-- sequences to PUBLIC, every function SECURITY INVOKER, and here with search_path = pg_catalog,
-- pg_temp, as every stand-in's function). A request is recorded in
-- net.http_request_queue as pg_net records it, and never sent: there is no module and no worker,
-- and the sandbox has no network. net.wake(), which pg_net's request functions call to wake the
-- worker, does nothing.

CREATE SCHEMA IF NOT EXISTS net;

CREATE DOMAIN net.http_method AS text
  CHECK (VALUE OPERATOR(pg_catalog.~~*) 'get' OR VALUE OPERATOR(pg_catalog.~~*) 'post'
         OR VALUE OPERATOR(pg_catalog.~~*) 'delete');
CREATE TYPE net.request_status AS ENUM ('PENDING', 'SUCCESS', 'ERROR');
CREATE TYPE net.http_response AS (status_code integer, headers jsonb, body text);
CREATE TYPE net.http_response_result AS (status net.request_status, message text, response net.http_response);

CREATE UNLOGGED TABLE net.http_request_queue (
  id                   bigserial,
  method               net.http_method NOT NULL,
  url                  text NOT NULL,
  headers              jsonb,
  body                 bytea,
  timeout_milliseconds integer NOT NULL
);

CREATE UNLOGGED TABLE net._http_response (
  id           bigint,
  status_code  integer,
  content_type text,
  headers      jsonb,
  content      text,
  timed_out    boolean,
  error_msg    text,
  created      timestamptz NOT NULL DEFAULT pg_catalog.now()
);
CREATE INDEX ON net._http_response (created);

GRANT USAGE ON SCHEMA net TO PUBLIC;
GRANT ALL ON ALL TABLES IN SCHEMA net TO PUBLIC;
GRANT ALL ON ALL SEQUENCES IN SCHEMA net TO PUBLIC;

-- The worker's controls: there is no worker.
CREATE FUNCTION net.wake() RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT $$;
CREATE FUNCTION net.wait_until_running() RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT $$;
CREATE FUNCTION net.check_worker_is_up() RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT $$;
CREATE FUNCTION net.worker_restart() RETURNS boolean LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT false $$;

CREATE FUNCTION net._ledgercheck_urlencode(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(pg_catalog.string_agg(
    CASE WHEN b.c OPERATOR(pg_catalog.~) '^[A-Za-z0-9._~-]$' THEN b.c
      ELSE pg_catalog.upper(pg_catalog.regexp_replace(pg_catalog.encode(pg_catalog.convert_to(b.c, 'UTF8'), 'hex'), '(..)', '%\1', 'g')) END,
    '' ORDER BY b.i), '')
  FROM pg_catalog.regexp_split_to_table($1, '') WITH ORDINALITY AS b(c, i)
$$;

-- url with params (a JSON object of strings) appended as its query string, percent-encoded.
CREATE FUNCTION net._ledgercheck_url(url text, params jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN q IS NULL OR q OPERATOR(pg_catalog.=) '' THEN $1
    ELSE $1 OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.strpos($1, '?') OPERATOR(pg_catalog.>) 0 THEN '&' ELSE '?' END
      OPERATOR(pg_catalog.||) q END
  FROM (
    SELECT pg_catalog.string_agg(net._ledgercheck_urlencode(e.key) OPERATOR(pg_catalog.||) '='
             OPERATOR(pg_catalog.||) net._ledgercheck_urlencode(e.value), '&') AS q
    FROM pg_catalog.jsonb_each_text(coalesce($2, '{}'::jsonb)) AS e
  ) AS p
$$;

-- Records a request as pg_net's request functions do, and returns its id.
CREATE FUNCTION net._ledgercheck_enqueue(method net.http_method, url text, headers jsonb, body bytea,
  timeout_milliseconds integer) RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  request_id bigint;
BEGIN
  INSERT INTO net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  VALUES ($1, $2, $3, $4, $5)
  RETURNING id INTO request_id;
  PERFORM net.wake();
  RETURN request_id;
END
$$;

CREATE FUNCTION net.http_get(
  url                  text,
  params               jsonb DEFAULT '{}'::jsonb,
  headers              jsonb DEFAULT '{}'::jsonb,
  timeout_milliseconds integer DEFAULT 5000
) RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT net._ledgercheck_enqueue('GET', net._ledgercheck_url($1, $2), $3, NULL, $4) $$;

CREATE FUNCTION net.http_post(
  url                  text,
  body                 jsonb DEFAULT '{}'::jsonb,
  params               jsonb DEFAULT '{}'::jsonb,
  headers              jsonb DEFAULT '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer DEFAULT 5000
) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  content_type text;
  hdrs jsonb := coalesce($4, '{}'::jsonb);
BEGIN
  SELECT h.value INTO content_type FROM pg_catalog.jsonb_each_text(hdrs) AS h
  WHERE pg_catalog.lower(h.key) OPERATOR(pg_catalog.=) 'content-type' LIMIT 1;
  IF content_type IS NULL THEN
    hdrs := hdrs OPERATOR(pg_catalog.||) '{"Content-Type": "application/json"}'::jsonb;
  ELSIF content_type OPERATOR(pg_catalog.<>) 'application/json' THEN
    RAISE EXCEPTION 'Content-Type header must be "application/json"';
  END IF;
  RETURN net._ledgercheck_enqueue('POST', net._ledgercheck_url($1, $3), hdrs, pg_catalog.convert_to($2::text, 'UTF8'), $5);
END
$$;

CREATE FUNCTION net.http_delete(
  url                  text,
  params               jsonb DEFAULT '{}'::jsonb,
  headers              jsonb DEFAULT '{}'::jsonb,
  timeout_milliseconds integer DEFAULT 5000,
  body                 jsonb DEFAULT NULL
) RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT net._ledgercheck_enqueue('DELETE', net._ledgercheck_url($1, $2), $3, pg_catalog.convert_to($5::text, 'UTF8'), $4) $$;

-- A response is never collected: nothing is sent.
CREATE FUNCTION net._http_collect_response(request_id bigint, async boolean DEFAULT true)
RETURNS net.http_response_result
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r net._http_response;
BEGIN
  SELECT * INTO r FROM net._http_response AS x WHERE x.id OPERATOR(pg_catalog.=) $1;
  IF NOT FOUND THEN
    RETURN ROW('PENDING', 'request is pending processing', NULL)::net.http_response_result;
  END IF;
  IF r.error_msg IS NOT NULL THEN
    RETURN ROW('ERROR', r.error_msg, NULL)::net.http_response_result;
  END IF;
  RETURN ROW('SUCCESS', 'ok', ROW(r.status_code, r.headers, r.content)::net.http_response)::net.http_response_result;
END
$$;

CREATE FUNCTION net.http_collect_response(request_id bigint, async boolean DEFAULT true)
RETURNS net.http_response_result
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RAISE NOTICE 'The net.http_collect_response function is deprecated.';
  RETURN net._http_collect_response($1, $2);
END
$$;
