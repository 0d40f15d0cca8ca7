package privileged_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/cli"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// shadowMarker is in the error every shadow raises when a session other than the install role's
// runs it.
const shadowMarker = "ledgercheck-shadow-ran"

// shadowRan matches the message a shadow raised ("... ran as supabase_admin"), not its body, which
// a snapshot prints ("... ran as %").
var shadowRan = regexp.MustCompile(shadowMarker + `: [^\n]*? ran as [A-Za-z_]`)

// shadowPool are the concrete types a shadow's argument may take where pg_catalog's overload
// has a polymorphic one, or a type they cast to implicitly: the types of catalog columns and
// literals ledgercheck's queries pass. A shadow with such an argument is a better match than
// pg_catalog's overload (exact against coerced or polymorphic), which is what makes a shadow win
// over pg_catalog even though pg_catalog comes first on every search path.
var shadowPool = []string{"text", "name", `"char"`, "oid", "int4", "int8", "bool", "regclass", "regrole",
	"text[]", "oid[]"}

// shadowSQL is the migration that plants the shadows: for every function and operator name of
// ledgercheck's own SQL (refs, from the same parse as the static test), a shadow of every
// pg_catalog overload of up to three arguments (functions and aggregates: with its exact
// argument types and with each combination from shadowPool that matches better; variadic ones
// with their fixed arguments and one to three more, all of one pool type; binary operators:
// each better-matching combination, since pg_catalog, first on every path, wins a tie) in public
// and in a schema named after each privileged role (the default search path's "$user"). Each
// shadow raises shadowMarker unless the
// install role (whose session planted it) runs it. Planting happens once per database (a rerun
// of the migration skips it), one statement per name, so that no transaction holds a lock per
// shadow of every name. The shadows are a backstop for the static test, not a proof: a call
// whose arguments no pool combination matches better than pg_catalog's is not exercised.
func shadowSQL(refs *sqlRefs, privileged []string) string {
	q := func(xs []string) string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = "'" + strings.ReplaceAll(x, "'", "''") + "'"
		}
		return "ARRAY[" + strings.Join(out, ", ") + "]::pg_catalog.text[]"
	}
	funcs := slices.Sorted(maps.Keys(refs.funcs))
	ops := slices.Sorted(maps.Keys(refs.ops))
	schemas := append([]string{"public"}, privileged...)
	// One statement (one transaction) per name: a transaction holds a lock per object it creates.
	var calls strings.Builder
	for _, f := range funcs {
		fmt.Fprintf(&calls, "SELECT lc_shadow.plant_all(%s, '{}');\n", q([]string{f}))
	}
	for _, o := range ops {
		fmt.Fprintf(&calls, "SELECT lc_shadow.plant_all('{}', %s);\n", q([]string{o}))
	}
	calls.WriteString("CREATE SCHEMA IF NOT EXISTS lc_shadow_planted;\n")
	var b strings.Builder
	b.WriteString("SET search_path = pg_catalog;\n")
	for _, s := range privileged {
		fmt.Fprintf(&b, "CREATE SCHEMA IF NOT EXISTS %s;\nGRANT USAGE ON SCHEMA %[1]s TO PUBLIC;\n", `"`+s+`"`)
	}
	fmt.Fprintf(&b, `CREATE SCHEMA IF NOT EXISTS lc_shadow;
CREATE OR REPLACE FUNCTION lc_shadow.cands(t pg_catalog.regtype, pool pg_catalog.regtype[]) RETURNS pg_catalog.regtype[]
LANGUAGE sql STABLE SET search_path = pg_catalog AS $f$
  SELECT CASE WHEN (SELECT typtype FROM pg_type WHERE oid = t) = 'p' THEN pool
    ELSE ARRAY[t] || ARRAY(SELECT c FROM unnest(pool) c WHERE c <> t
                                 AND EXISTS (SELECT FROM pg_cast WHERE castsource = c AND casttarget = t AND castcontext = 'i')) END
$f$;
CREATE OR REPLACE FUNCTION lc_shadow.plant_all(funcs text[], ops text[]) RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog AS $plant$
DECLARE
  schemas text[] := %[1]s;
  pool regtype[] := %[2]s::regtype[];
  p record; s text; a1 regtype[]; a2 regtype[]; a3 regtype[]; t1 regtype; t2 regtype; t3 regtype;
  args text; ret text; stmt text; opsql text[] := '{}'; k int; fname text;
BEGIN
  IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'lc_shadow_planted') THEN RETURN; END IF;
  -- Functions and aggregates, fixed arity up to 3.
  FOR p IN SELECT pr.proname, pr.prokind, pr.proretset, pr.prorettype::regtype AS rt, pr.pronargs,
                  pr.proargtypes::regtype[] AS at, pr.provariadic
             FROM pg_proc pr WHERE pr.pronamespace = 'pg_catalog'::regnamespace AND pr.proname = ANY (funcs)
              AND pr.prokind IN ('f', 'a') AND pr.pronargs <= 3 LOOP
    ret := CASE WHEN (SELECT typtype FROM pg_type WHERE oid = p.rt) = 'p' THEN 'text' ELSE p.rt::text END;
    IF p.provariadic <> 0 THEN
      -- VARIADIC: the fixed arguments as declared, then 1 to 3 more of one pool type.
      FOR k IN 1..3 LOOP
        FOREACH t1 IN ARRAY pool LOOP
          args := array_to_string(p.at[0:p.pronargs - 2], ', ');
          args := concat_ws(', ', nullif(args, ''), array_to_string(array_fill(t1::text, ARRAY[k]), ', '));
          FOREACH s IN ARRAY schemas LOOP
            PERFORM lc_shadow.plant(s, p.proname, p.prokind, p.proretset, ret, args);
          END LOOP;
        END LOOP;
      END LOOP;
      CONTINUE;
    END IF;
    a1 := CASE WHEN p.pronargs >= 1 THEN lc_shadow.cands(p.at[0], pool) ELSE ARRAY[NULL]::regtype[] END;
    a2 := CASE WHEN p.pronargs >= 2 THEN lc_shadow.cands(p.at[1], pool) ELSE ARRAY[NULL]::regtype[] END;
    a3 := CASE WHEN p.pronargs >= 3 THEN lc_shadow.cands(p.at[2], pool) ELSE ARRAY[NULL]::regtype[] END;
    FOREACH t1 IN ARRAY a1 LOOP FOREACH t2 IN ARRAY a2 LOOP FOREACH t3 IN ARRAY a3 LOOP
      args := concat_ws(', ', t1::text, t2::text, t3::text);
      FOREACH s IN ARRAY schemas LOOP
        PERFORM lc_shadow.plant(s, p.proname, p.prokind, p.proretset, ret, args);
      END LOOP;
    END LOOP; END LOOP; END LOOP;
  END LOOP;
  -- Binary operators.
  FOR p IN SELECT o.oprname, o.oprleft::regtype AS l, o.oprright::regtype AS r, o.oprresult::regtype AS rt
             FROM pg_operator o WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname = ANY (ops) AND o.oprkind = 'b' LOOP
    ret := CASE WHEN (SELECT typtype FROM pg_type WHERE oid = p.rt) = 'p' THEN 'text' ELSE p.rt::text END;
    FOREACH t1 IN ARRAY lc_shadow.cands(p.l, pool) LOOP FOREACH t2 IN ARRAY lc_shadow.cands(p.r, pool) LOOP
      CONTINUE WHEN t1 = p.l AND t2 = p.r;
      FOREACH s IN ARRAY schemas LOOP
        fname := 'lc_op_' || md5(p.oprname || t1 || t2);
        PERFORM lc_shadow.plant(s, fname, 'f', false, ret, t1::text || ', ' || t2::text);
        opsql := opsql || format('CREATE OPERATOR %%I.%%s (LEFTARG = %%s, RIGHTARG = %%s, FUNCTION = %%I.%%I)', s, p.oprname, t1, t2, s, fname);
      END LOOP;
    END LOOP; END LOOP;
  END LOOP;
  -- The operators last: creating one resets every cached plan of the session, this function's
  -- own loop included, which made them most of the planting's time.
  FOREACH stmt IN ARRAY ARRAY(SELECT DISTINCT u FROM unnest(opsql) u) LOOP
    EXECUTE stmt;
  END LOOP;
END
$plant$;
%[3]s`, q(schemas), q(shadowPool), calls.String())
	return plantFunction + b.String() + revokeSQL
}

// revokeSQL takes EXECUTE on the shadows in public from the API roles: the access observation
// calls every function anon and authenticated may execute, unprivileged and on purpose, so that
// thousands of shadows would be thousands of requests with nothing to show here. A privileged
// session resolves a name whatever its privileges (and the reader that resolved a shadow would
// fail on it, exit 3), so the shadows stand as they did.
const revokeSQL = `REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC, anon, authenticated;
`

// plantedBy is, in a shadow's body, the role that planted it: the owner of the schema lc_shadow,
// which the install role's session created. Read when a shadow runs rather than written into its
// body, so that every run's shadows have the same bodies (a --dsn run's install role has a name
// of its own): ledgercheck normalizes a body once per process, and the test runs every command
// in one. A missing owner (no lc_shadow) is distinct from every role: the shadow raises.
const plantedBy = `(SELECT pg_catalog.pg_get_userbyid(nspowner)::text FROM pg_catalog.pg_namespace WHERE nspname OPERATOR(pg_catalog.=) 'lc_shadow')`

// notUserSQL is true, in a shadow's body, outside the sessions of user SQL: those log in as the
// role that planted the shadows or as a login role of a database of the run, a member of it and
// no superuser (a superuser is a member of every role), which starts as it (scratch/login.go).
const notUserSQL = `session_user::text IS DISTINCT FROM ` + plantedBy + ` AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) m.member
  JOIN pg_catalog.pg_namespace n ON n.nspowner OPERATOR(pg_catalog.=) m.roleid AND n.nspname OPERATOR(pg_catalog.=) 'lc_shadow'
  WHERE r.rolname OPERATOR(pg_catalog.=) session_user AND NOT r.rolsuper)`

// plantFunction creates one shadow function (or aggregate, with a shadow state function) in
// schema s; a signature PostgreSQL refuses (a pseudo-type it cannot take) is skipped. A shadow
// raises when it runs outside the install role's sessions, but in the observer's: the access
// observation calls the migration's functions on purpose, as anon and authenticated (no
// privilege), and its own queries are held to pg_catalog by TestPrivilegedSQLResolvesOnlyPgCatalog.
// The shadows' bodies are compiled when one runs, not as it is created (check_function_bodies
// off): validating thousands of bodies of the same form was a third of a plant's time, and the
// plant makes the same shadows either way (5,398 functions and aggregates and 2,446 operators,
// with the same signatures and bodies, counted 2026-12-05).
const plantFunction = `SET search_path = pg_catalog;
SET check_function_bodies = off;
CREATE SCHEMA IF NOT EXISTS lc_shadow;
CREATE OR REPLACE FUNCTION lc_shadow.plant(s text, name text, kind "char", retset bool, ret text, args text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $f$
DECLARE
  body text := format($b$BEGIN IF ` + notUserSQL + ` AND right(session_user::text, 9) <> '_observer' THEN RAISE EXCEPTION '` + shadowMarker + `: %s.%s(%s) ran as %%', session_user; END IF; RETURN%s; END$b$,
                      s, name, args, CASE WHEN retset OR kind = 'a' THEN '' ELSE ' NULL' END);
BEGIN
  IF kind = 'a' THEN
    EXECUTE format('CREATE OR REPLACE FUNCTION %I.%I(%s) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog AS %L',
                   s, 'lc_sfunc_' || name, concat_ws(', ', 'text', nullif(args, '')),
                   replace(body, 'RETURN;', 'RETURN NULL;'));
    EXECUTE format('CREATE AGGREGATE %I.%I(%s) (SFUNC = %I.%I, STYPE = text)', s, name, coalesce(nullif(args, ''), '*'), s, 'lc_sfunc_' || name);
  ELSE
    EXECUTE format('CREATE OR REPLACE FUNCTION %I.%I(%s) RETURNS %s%s LANGUAGE plpgsql SET search_path = pg_catalog AS %L',
                   s, name, args, CASE WHEN retset THEN 'SETOF ' ELSE '' END, ret, body);
  END IF;
EXCEPTION WHEN duplicate_function OR invalid_function_definition OR datatype_mismatch OR wrong_object_type
          OR feature_not_supported OR undefined_object OR invalid_parameter_value OR syntax_error THEN
  NULL;
END
$f$;
`

// castsSQL are user types with casts AS json and AS text that raise, and a table of them with
// rows, which the digests read. It runs where the shadows stand, as user SQL: what it calls is
// qualified, or the shadows would answer it (public.format(text, text), a closer match than
// pg_catalog's variadic one, returns NULL, and EXECUTE NULL stopped the install).
const castsSQL = `DO $casts$
DECLARE
  body text;
BEGIN
  IF EXISTS (SELECT FROM pg_catalog.pg_type WHERE typname OPERATOR(pg_catalog.=) 'lc_mood') THEN RETURN; END IF;
  CREATE TYPE public.lc_mood AS ENUM ('sad', 'ok');
  CREATE TYPE public.lc_moods AS RANGE (subtype = public.lc_mood);
  CREATE DOMAIN public.lc_good AS public.lc_mood;
  CREATE TYPE public.lc_pair AS (m public.lc_mood, n int);
  body := $b$BEGIN IF ` + notUserSQL + ` THEN RAISE EXCEPTION '` + shadowMarker + `: a cast ran as %', session_user; END IF; RETURN NULL; END$b$;
  EXECUTE pg_catalog.format('CREATE FUNCTION public.lc_cast_json(public.lc_mood) RETURNS json LANGUAGE plpgsql AS %L', body);
  EXECUTE pg_catalog.format('CREATE FUNCTION public.lc_cast_text(public.lc_mood) RETURNS text LANGUAGE plpgsql AS %L', body);
  EXECUTE pg_catalog.format('CREATE FUNCTION public.lc_cast_range(public.lc_moods) RETURNS json LANGUAGE plpgsql AS %L', body);
  EXECUTE pg_catalog.format('CREATE FUNCTION public.lc_cast_array(public.lc_mood[]) RETURNS json LANGUAGE plpgsql AS %L', body);
  EXECUTE pg_catalog.format('CREATE FUNCTION public.lc_cast_pair(public.lc_pair) RETURNS json LANGUAGE plpgsql AS %L', body);
  CREATE CAST (public.lc_mood AS json) WITH FUNCTION public.lc_cast_json(public.lc_mood);
  CREATE CAST (public.lc_mood AS text) WITH FUNCTION public.lc_cast_text(public.lc_mood);
  CREATE CAST (public.lc_moods AS json) WITH FUNCTION public.lc_cast_range(public.lc_moods);
  CREATE CAST (public.lc_mood[] AS json) WITH FUNCTION public.lc_cast_array(public.lc_mood[]);
  CREATE CAST (public.lc_pair AS json) WITH FUNCTION public.lc_cast_pair(public.lc_pair);
  CREATE TABLE public.lc_feelings (id int PRIMARY KEY, m public.lc_mood, r public.lc_moods, d public.lc_good,
                                   a public.lc_mood[], p public.lc_pair);
  ALTER TABLE public.lc_feelings ENABLE ROW LEVEL SECURITY;
  INSERT INTO public.lc_feelings VALUES (1, 'ok', '[sad,ok)', 'ok', '{sad,ok}', '(ok,2)');
END
$casts$;
RESET search_path;
`

// TestPrivilegedSessionsRunNoShadow is the dynamic half of the construction test: a prerequisite
// file (or, for the commands that read no configuration, the migration) plants a shadow of every
// function and operator name ledgercheck's own SQL uses (collected by the static test's parse),
// the migration creates user types with casts (castsSQL), and every command that opens a privileged
// session runs over it on the embedded cluster, and on a --dsn server check and the commands
// whose steps check's do not include: none may run a shadow (each would raise shadowMarker,
// which the command reports as an error, exit 3), and each command exits 0 or 1.
func TestPrivilegedSessionsRunNoShadow(t *testing.T) {
	scratchtest.NeedPostgres(t)
	texts, _ := toolSQL(t)
	refs := newRefs()
	for _, x := range texts {
		checkTree(x.tree, refs)
	}
	dsn, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{Preload: "ledgercheck_guard", Superuser: "lc_super"})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := dsn.Stop(); err != nil {
			t.Errorf("stopping the --dsn server: %v", err)
		}
	})
	dir := t.TempDir()
	t.Setenv("LEDGERCHECK_CACHE_DIR", filepath.Join(dir, "cache"))
	// check reads the configuration and installs over its prerequisite, which planted the
	// shadows in the template: its file (over-base.sql) only checks that they stand.
	//
	// The commands that run a subset of check's steps through the gate's one pipeline are not run
	// here: lint --install (gate.Lint: its lint steps through the pipeline's variant), rerun (its
	// rerun step, with a fixture or with generated rows), parity and allowlist suggest (its parity
	// step: on the server, each variant's install and probes, which check runs for the artifact;
	// the comparison of the variants runs no SQL), snapshot --install (install.Footprint, the install and the two snapshots every
	// variant of check takes, which check takes with the shadows standing before the file runs
	// too). internal/cli reaches a server only through internal/gate, and check runs every step
	// (internal/cli's TestCheckRunsEveryStep), with a configuration that has a previous version,
	// probes and no fixture (rows generated as the install role, values of the user types with
	// casts included, in the shadows' tables and the previous version's, for the digests to
	// read): check's run, on the same files and the same kind of server, stands for theirs.
	// rerun --no-fixture and snapshot --install, run here until 2026-12-06, cost 6.5 and about
	// 3 s of CPU in each mode, each planting the shadows again, for steps check's run takes too.
	commands := [][]string{
		{"check", "--config", "ledgercheck.yaml"},
	}
	// Each mode's privileged role: the embedded cluster's superuser, the --dsn role. The two
	// modes run side by side, each in a directory of its own.
	for _, mode := range []struct{ name, role, dsn string }{{"embedded", "supabase_admin", ""}, {"dsn", "lc_super", dsn.DSN}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			repo := shadowRepo(t, filepath.Join(dir, mode.name), shadowSQL(refs, []string{mode.role}))
			for _, c := range commands {
				args := slices.Clone(c)
				for i, a := range args {
					if strings.HasSuffix(a, ".sql") || strings.HasSuffix(a, ".yaml") {
						args[i] = filepath.Join(repo, a)
					}
				}
				if mode.dsn != "" {
					args = append(args, "--dsn", mode.dsn)
				}
				runNoShadow(t, args...)
			}
			if mode.dsn != "" {
				runNoShadow(t, "cleanup", "--dsn", mode.dsn)
			}
		})
	}
}

// shadowRepo writes, in dir, a repository whose prerequisite file (shadows-base.sql) plants the
// shadows and whose artifact and port (over-base.sql) check that they stand (shadowsMissing
// otherwise) and create the user types with casts, with a previous version (no fixture) and a
// probe. It returns dir. Planted by the prerequisite, the shadows are in the template
// every database of a run is copied from (and its cache entry), so they stand before the first
// privileged read of every database, the template's own included, and are planted once per run
// instead of once per install, rerun and upgrade.
func shadowRepo(t *testing.T, dir, plant string) string {
	t.Helper()
	files := map[string]string{
		"shadows-base.sql": plant,
		"over-base.sql":    overBaseSQL + castsSQL + beforeSQL + metadataSQL,
		"previous.sql":     beforeSQL + "INSERT INTO public.lc_before VALUES (1, 'a') ON CONFLICT DO NOTHING;\n",
		"ledgercheck.yaml": `version: 2
artifact:
  file: over-base.sql
  dim: 1536
  previous: previous.sql
# No port: what a port adds to the run is parity's comparison of the variants' snapshots and
# probe rows, which runs no SQL (a second variant of the same file ran every server step again:
# about 5 s of CPU in the two modes).
prerequisites:
  openbrain: true
  files: [shadows-base.sql]
# Run 2 reads what run 3 would, on the same sessions.
rerun:
  times: 2
probes:
  - name: feelings
    sql: SELECT id, m, r, d, a, p FROM public.lc_feelings ORDER BY id
`,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// metadataSQL is a table whose policy trusts the user's metadata in auth.users, through a
// definer helper: the observation sets user A's metadata there on the superuser's session, and
// puts it back, for each value it tries.
const metadataSQL = `CREATE OR REPLACE FUNCTION public.lc_team() RETURNS text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT u.raw_user_meta_data ->> 'team' FROM auth.users u WHERE u.id = (SELECT auth.uid());
$$;
REVOKE ALL ON FUNCTION public.lc_team() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.lc_team() TO authenticated;
CREATE TABLE IF NOT EXISTS public.lc_staff_notes (id int PRIMARY KEY, note text);
ALTER TABLE public.lc_staff_notes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lc_staff ON public.lc_staff_notes;
CREATE POLICY lc_staff ON public.lc_staff_notes FOR SELECT TO authenticated USING ((SELECT public.lc_team()) = 'staff');
GRANT SELECT ON public.lc_staff_notes TO authenticated;
`

// beforeSQL is the table the previous version creates (with a row), which the rows check
// generates fill further and the files keep: rows are generated after every install, the
// previous version's and the fresh ones.
const beforeSQL = "CREATE TABLE IF NOT EXISTS public.lc_before (id int PRIMARY KEY, note text);\n"

// shadowsMissing is in the error over-base.sql raises where the prerequisite planted no shadow.
const shadowsMissing = "ledgercheck-shadows-missing"

// overBaseSQL stops the install of a migration over the prerequisite where the shadows it
// planted do not stand.
const overBaseSQL = `DO $check$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname OPERATOR(pg_catalog.=) 'lc_shadow_planted') THEN
    RAISE EXCEPTION '` + shadowsMissing + `: the prerequisite planted no shadow';
  END IF;
END $check$;
`

// runNoShadow runs ledgercheck with args and fails unless it exits 0 or 1 without a shadow's
// marker, or shadowsMissing, in its output, and with every file installed (no install-failed
// finding, by its rule id, and no note that a file does not install): a file that does not
// install ends the run before the phases that read what it made (audit, bodies, locks, reruns,
// probes, personas), whose privileged sessions the test is about.
func runNoShadow(t *testing.T, args ...string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errs)
	all := out.String() + errs.String()
	notInstalled := strings.Contains(all, "["+install.RuleInstallFailed+"]") || strings.Contains(all, "does not install")
	if shadowRan.MatchString(all) || strings.Contains(all, shadowsMissing) || notInstalled || code > 1 {
		t.Errorf("ledgercheck %s: exit %d\n%s", strings.Join(args, " "), code, tail(all, 3000))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
