package observe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// stepOut is a sidecar whose functions, callable by anon, try to step out of the request's
// role: one resets it and reads a service_role-only table and calls a definer function anon may
// not call (it gets nothing); one switches to service_role, as a function called through
// Supabase's authenticator (a member of service_role) can (reported).
const stepOut = `CREATE TABLE public.ops_secrets (id bigint PRIMARY KEY, token text NOT NULL);
ALTER TABLE public.ops_secrets ENABLE ROW LEVEL SECURITY;
CREATE POLICY ops_secrets_service ON public.ops_secrets FOR ALL TO service_role USING (true) WITH CHECK (true);
REVOKE ALL ON public.ops_secrets FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.ops_secrets TO service_role;
CREATE FUNCTION public.ops_secret_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER SET search_path = ''
  AS $$ SELECT count(*) FROM public.ops_secrets $$;
REVOKE ALL ON FUNCTION public.ops_secret_count() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.ops_secret_count() TO service_role;
CREATE FUNCTION public.ops_peek_reset() RETURNS SETOF text LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  RESET ROLE;
  RETURN QUERY SELECT token FROM public.ops_secrets;
  RETURN QUERY SELECT public.ops_secret_count()::text;
END $$;
CREATE FUNCTION public.ops_peek_escalate() RETURNS SETOF text LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  SET LOCAL ROLE service_role;
  RETURN QUERY SELECT token FROM public.ops_secrets;
END $$;
REVOKE ALL ON FUNCTION public.ops_peek_reset(), public.ops_peek_escalate() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ops_peek_reset(), public.ops_peek_escalate() TO anon;
NOTIFY pgrst, 'reload schema';
`

// The observation runs on a --dsn server as it does embedded (a request that resets its role gets
// nothing, one that switches to service_role is reported): the observer is a role of the run's
// own, dropped with the run.
func TestObservationOnDSN(t *testing.T) {
	t.Parallel()
	dsn := scratchtest.SharedDSNServer(t)
	ctx := context.Background()
	srv, err := scratch.Start(ctx, scratch.Options{DSN: dsn.DSN})
	if err != nil {
		t.Fatal(err)
	}
	observer := ""
	func() {
		defer srv.Close()
		fs, _ := observedOn(t, srv, "stepout.sql", stepOut, models[0])
		if len(fs) != 1 || fs[0].Rule != "anon-reads-rows" {
			t.Errorf("on the --dsn server:\n%s\nwant the escalation alone", strings.Join(lines(fs), "\n"))
		}
		db, err := srv.NewEnvDatabase(ctx)
		if err != nil {
			t.Fatal(err)
		}
		observer = db.ObserverRole()
		if !strings.HasPrefix(observer, scratch.NamePrefix) || !strings.HasSuffix(observer, "_observer") || observer == scratch.NamePrefix+"observer" {
			t.Errorf("the observer on a --dsn server is %q, want a role of the run's own", observer)
		}
	}()
	var left bool
	if err := dsn.Conn(t).QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, observer).Scan(&left); err != nil || left {
		t.Errorf("the run's observer %s is left on the server (%v)", observer, err)
	}
}

// Requests that each run until their timeout do not hold the gate: past the observation's
// time, what did not run is noted, the observation ends without an error, and the incomplete
// observation is an error finding at the file's start (a file that spends the time on purpose
// hides what the requests not made would have shown).
func TestObservationIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	f, err := sqlscript.Parse("slow.sql", []byte(`CREATE FUNCTION public.slow_count(p integer) RETURNS integer LANGUAGE sql
  AS $$ SELECT p FROM (SELECT pg_sleep(0.4)) s $$;
CREATE TABLE public.slow_notes (id bigint PRIMARY KEY, body text);
GRANT SELECT ON public.slow_notes TO anon, authenticated;
`), 1536)
	if err != nil {
		t.Fatal(err)
	}
	fp, after, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := observe.Run(ctx, db, observe.Input{Model: "new-defaults", Scope: observe.ScopeOf(fp, []string{"public"}), Snapshot: after, Dim: 1536,
		Budget: 600 * time.Millisecond})
	if err != nil {
		t.Fatalf("a bounded observation ended with an error: %v", err)
	}
	if !strings.Contains(strings.Join(ob.Notes, "\n"), "the observation's time (600ms) ran out") {
		t.Errorf("no note says the time ran out: %q", ob.Notes)
	}
	var incomplete []finding.Finding
	for _, x := range observe.Findings(observe.FindingsInput{File: f}, []*observe.Observation{ob}) {
		if x.Rule == "observation-incomplete" {
			incomplete = append(incomplete, x)
		}
	}
	if ob.Unmade == 0 || len(incomplete) != 1 || incomplete[0].Severity != finding.SevError || incomplete[0].Pos.String() != "slow.sql:1:1" {
		t.Errorf("%d requests unmade, findings %v; want one observation-incomplete error at slow.sql:1:1", ob.Unmade, incomplete)
	}
}

// blindObserver opens a table to anon, then reaches for every role that looks like the
// observer to blind it: a default role of service_role, anon and authenticated taken away, no
// connection left. Each attempt is caught, so that the file installs whatever the server says.
const blindObserver = `CREATE TABLE public.lc_open_notes (id bigint PRIMARY KEY, body text NOT NULL);
ALTER TABLE public.lc_open_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY lc_open_notes_read ON public.lc_open_notes FOR SELECT USING (NOT false);
GRANT SELECT ON public.lc_open_notes TO anon;
INSERT INTO public.lc_open_notes VALUES (1, 'a'), (2, 'b');
DO $$
DECLARE r text;
BEGIN
  FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE '%observer%' LOOP
    BEGIN EXECUTE format('ALTER ROLE %I SET role = %I', r, 'service_role'); EXCEPTION WHEN others THEN NULL; END;
    BEGIN EXECUTE format('REVOKE anon, authenticated FROM %I', r); EXCEPTION WHEN others THEN NULL; END;
    BEGIN EXECUTE format('ALTER ROLE %I CONNECTION LIMIT 0', r); EXCEPTION WHEN others THEN NULL; END;
    BEGIN EXECUTE format('ALTER ROLE %I PASSWORD %L', r, 'chosen'); EXCEPTION WHEN others THEN NULL; END;
  END LOOP;
END $$;
`

// A migration cannot blind the observation by changing the observer (it is no role the install
// role administers): embedded and on a --dsn server, anon's read of the open table is still
// observed, and the observer still has what it had.
func TestMigrationCannotBlindTheObserver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsnSrv, err := scratch.Start(ctx, scratch.Options{DSN: scratchtest.SharedDSNServer(t).DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer dsnSrv.Close()
	for name, srv := range map[string]*scratch.Server{"embedded": scratchtest.Server(t), "dsn": dsnSrv} {
		fs, _ := observedOn(t, srv, "blind.sql", blindObserver, models[0])
		if len(fs) == 0 || fs[0].Rule != "anon-reads-rows" || !strings.Contains(fs[0].Message, "2 of 2 rows") {
			t.Errorf("%s: %s\nwant anon reading 2 of 2 rows, observed", name, strings.Join(lines(fs), "\n"))
		}
		db, err := srv.NewEnvDatabase(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var member bool
		var settings int
		err = scratchtest.Connect(t, db).QueryRow(ctx, `SELECT pg_has_role($1, 'anon', 'MEMBER') AND pg_has_role($1, 'authenticated', 'MEMBER'),
			(SELECT count(*) FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = $1)`, db.ObserverRole()).Scan(&member, &settings)
		if err != nil || !member || settings != 0 {
			t.Errorf("%s: the observer %s after the migration: member of anon and authenticated %t, settings %d (%v)", name, db.ObserverRole(), member, settings, err)
		}
	}
}
