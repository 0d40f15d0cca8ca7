package scratch_test

// Issue 22, cause 4: on --dsn a run drops exactly what it made, and nothing else. Each attack is
// a migration's SQL, run as user SQL in a run's database, as an attacker would write it; each
// runs twice, once in a run that ends (Close) and once in a run that is killed (the next
// `ledgercheck cleanup` sweeps it). After either, the server holds exactly the roles and
// databases it held before, pre-existing databases are owned as before with their flags, a later
// run starts and ends cleanly and cleanup exits 0 with nothing to drop. The server is the
// version the tests select (LEDGERCHECK_PG), with ledgercheck's guard on 15. The cases share
// servers (borrowTenantServer): each starts on a server exactly as the tenant left it, which is
// the promise, checked after each case, that makes the next case's server a fresh one.

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// grantSelf lets the install role SET ROLE to role: on 16 and later a creator's implicit ADMIN
// grant is SET FALSE, so the migration grants the role to itself WITH SET TRUE (syntax 15 does
// not have; there the implicit grant already allows SET ROLE).
func grantSelf(role string) string {
	return fmt.Sprintf(`DO $$ BEGIN EXECUTE format('GRANT %[1]s TO %%I WITH SET TRUE, INHERIT TRUE', current_user);
EXCEPTION WHEN syntax_error THEN NULL; END $$;
`, role)
}

// dsnAttacks are the migrations. Each is one script; a statement the server refuses ends it,
// as it ends a migration, and what ran before stays.
var dsnAttacks = []struct {
	name string
	sql  string
	// linked: every role the attack makes stays tied to the run's install role by a membership
	// or an ADMIN OPTION, so that a sweep after a kill finds it too; the others detach roles
	// from every tie, which only the run that made them can tell (see findDeadRun).
	linked bool
	// midRun runs as a superuser once the run has started (another client's change): here, the
	// tenant's databases handed to roles the migration's role joins, which the run refuses to
	// start on (TestServerModeRefusesServersWhoseAPIRolesHoldSomething), so that what the run
	// does with what it could take anyway is tested too.
	midRun string
}{
	// Databases the run cannot drop as they are.
	{name: "own database made a template", linked: true,
		sql: "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database()); END $$;"},
	{name: "own database closed to connections", linked: true,
		sql: "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I ALLOW_CONNECTIONS false', current_database()); END $$;"},
	{name: "own database connection limit 0, read-only by default", linked: true,
		sql: "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I CONNECTION LIMIT 0', current_database());\n" +
			"EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$;"},
	{name: "prepared transaction", linked: true,
		sql: "BEGIN;\nCREATE TABLE public.held (id int);\nINSERT INTO public.held VALUES (1);\nPREPARE TRANSACTION 'lc_attack_1';"},
	{name: "prepared transaction holding a role's row, database a template closed to connections", linked: true,
		sql: "CREATE ROLE lc_held NOLOGIN;\n" +
			"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database()); END $$;\n" +
			"BEGIN;\nALTER ROLE lc_held CONNECTION LIMIT 3;\nCOMMENT ON ROLE lc_held IS 'held';\n" +
			"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I ALLOW_CONNECTIONS false', current_database()); END $$;\n" +
			"PREPARE TRANSACTION 'lc_attack_2';"},
	{name: "two prepared transactions, then a template", linked: true,
		sql: "BEGIN;\nCREATE TABLE public.a (id int);\nPREPARE TRANSACTION 'lc_attack_3';\n" +
			"BEGIN;\nCREATE TABLE public.b (id int);\nPREPARE TRANSACTION 'lc''attack \"4';\n" +
			"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database()); END $$;"},

	// Roles the install role does not administer.
	{name: "role made by a role the migration made", linked: true,
		sql: "CREATE ROLE lc_maker NOLOGIN CREATEROLE;\n" + grantSelf("lc_maker") +
			"SET ROLE lc_maker;\nCREATE ROLE lc_made LOGIN PASSWORD 'chosen by the migration';\nRESET ROLE;"},
	{name: "three generations of makers",
		sql: "CREATE ROLE lc_g1 NOLOGIN CREATEROLE;\n" + grantSelf("lc_g1") +
			"SET ROLE lc_g1;\nCREATE ROLE lc_g2 NOLOGIN CREATEROLE;\n" + grantSelf("lc_g2") +
			"SET ROLE lc_g2;\nCREATE ROLE lc_g3 LOGIN PASSWORD 'chosen';\nRESET ROLE;\n" +
			// lc_g2 drops the link from lc_g1 to itself where the server lets it (15).
			"REVOKE ADMIN OPTION FOR lc_g2 FROM lc_g1;"},
	{name: "maker dropped, its role left without any tie",
		sql: "CREATE ROLE lc_maker NOLOGIN CREATEROLE;\n" + grantSelf("lc_maker") +
			"SET ROLE lc_maker;\nCREATE ROLE lc_orphan LOGIN PASSWORD 'chosen by the migration';\nRESET ROLE;\n" +
			"DROP ROLE lc_maker;"},
	{name: "ADMIN link back to the install role revoked",
		sql: "CREATE ROLE lc_free LOGIN PASSWORD 'chosen';\n" +
			"DO $$ BEGIN EXECUTE format('REVOKE lc_free FROM %I', current_user); END $$;"},
	{name: "ADMIN OPTION revoked, role renamed, made a member of an API role's group, a forged mark",
		sql: "CREATE ROLE lc_a LOGIN PASSWORD 'chosen';\nALTER ROLE lc_a RENAME TO lc_renamed;\n" +
			"GRANT lc_renamed TO service_role;\nALTER ROLE lc_renamed SET work_mem = '1MB';\n" +
			"COMMENT ON ROLE lc_renamed IS 'ledgercheck run 0123456789ab at 2000-01-01T00:00:00Z';\n" +
			"DO $$ BEGIN EXECUTE format('REVOKE ADMIN OPTION FOR lc_renamed FROM %I', current_user); END $$;"},

	// What existed before the run: out of reach.
	{name: "drop another tenant's database", linked: true, sql: "DROP DATABASE tenant_db;"},
	{name: "REASSIGN OWNED BY the tenant's owner", linked: true, sql: "REASSIGN OWNED BY tenant_owner TO CURRENT_USER;"},
	{name: "take another tenant's database", linked: true,
		sql: "DO $$ BEGIN EXECUTE format('ALTER DATABASE tenant_db OWNER TO %I', current_user); END $$;"},
	{name: "REASSIGN OWNED BY service_role, which holds a role of the tenant's", linked: true,
		sql: "REASSIGN OWNED BY service_role TO CURRENT_USER;\nALTER ROLE tenant_role PASSWORD 'taken';"},
	// ... and handed within reach by another client while the run goes on.
	{name: "REASSIGN OWNED BY service_role TO CURRENT_USER", linked: true, midRun: handOver,
		sql: "REASSIGN OWNED BY service_role TO CURRENT_USER;"},
	{name: "REASSIGN OWNED, then the taken database closed, made a template, set and granted", linked: true, midRun: handOver,
		sql: "REASSIGN OWNED BY service_role, authenticated TO CURRENT_USER;\nCREATE ROLE lc_guest LOGIN PASSWORD 'chosen';\n" +
			"GRANT CONNECT, CREATE ON DATABASE tenant_db TO lc_guest;\n" +
			"ALTER DATABASE tenant_db CONNECTION LIMIT 0;\nALTER DATABASE tenant_db ALLOW_CONNECTIONS false;\nALTER DATABASE tenant_db IS_TEMPLATE true;"},
	{name: "REASSIGN OWNED to a role the migration made", linked: true, midRun: handOver,
		sql: "CREATE ROLE lc_taker NOLOGIN;\nREASSIGN OWNED BY service_role TO lc_taker;"},
}

// handOver is another client handing the tenant's databases to API roles during a run, and
// undoHandOver that client taking them back.
const (
	handOver     = "ALTER DATABASE tenant_db OWNER TO service_role; ALTER DATABASE tenant_two OWNER TO authenticated"
	undoHandOver = "ALTER DATABASE tenant_db OWNER TO tenant_owner; ALTER DATABASE tenant_two OWNER TO tenant_owner"
)

// roleLines returns the roles of a serverState.
func roleLines(state []string) []string {
	return slices.DeleteFunc(slices.Clone(state), func(l string) bool { return !strings.HasPrefix(l, "role ") })
}

// tenantSetup is another tenant's state on the server, before any run: the API roles exist (not
// the runs', so runs do not drop them), the tenant's databases, and a login role of the tenant's
// that service_role belongs to.
const tenantSetup = `CREATE ROLE tenant_owner NOLOGIN;
CREATE DATABASE tenant_db OWNER tenant_owner CONNECTION LIMIT 7;
CREATE DATABASE tenant_two OWNER tenant_owner;
CREATE ROLE tenant_role LOGIN PASSWORD 'tenant';
GRANT tenant_role TO service_role`

// serverState is what the test compares before and after: databases with owner, flags and
// privileges (a default ACL written out equals none), and roles with attributes.
func serverState(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	out, err := serverStateOf(conn)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func serverStateOf(conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(context.Background(), `
		SELECT 'database ' || d.datname || ' owner ' || r.rolname || ' template ' || d.datistemplate
		       || ' conns ' || d.datallowconn || ' limit ' || d.datconnlimit || ' acl ' || coalesce(d.datacl, acldefault('d', d.datdba))::text
		FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
		UNION ALL
		SELECT 'role ' || rolname || ' login ' || rolcanlogin || ' createrole ' || rolcreaterole || ' createdb ' || rolcreatedb
		FROM pg_roles WHERE rolname !~ '^pg_'
		ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// markPattern is everything a role's mark may say: the run's random id and when it started.
var markPattern = regexp.MustCompile(`^ledgercheck run [0-9a-f]{12} at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

// checkMarks fails the test if a mark on the server, as user SQL reads it, says anything but
// the run's id and start: no host name, no process id.
func checkMarks(t *testing.T, db *scratch.Database) {
	t.Helper()
	conn := scratchtest.Connect(t, db)
	rows, err := conn.Query(context.Background(), `SELECT r.rolname, d.description FROM pg_shdescription d JOIN pg_roles r ON r.oid = d.objoid
		WHERE d.classoid = 'pg_authid'::regclass AND d.description LIKE 'ledgercheck%'`)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	n := 0
	for rows.Next() {
		var role, mark string
		if err := rows.Scan(&role, &mark); err != nil {
			t.Fatal(err)
		}
		n++
		if !markPattern.MatchString(mark) || (host != "" && strings.Contains(mark, host)) {
			t.Errorf("role %s's mark %q, readable by user SQL, says more than the run's id and start", role, mark)
		}
	}
	if n == 0 {
		t.Error("user SQL sees no mark: the run's install role must carry one")
	}
}

func TestServerModeAttacksLeaveNothing(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, killed := range []bool{false, true} {
		for _, a := range dsnAttacks {
			if killed && !a.linked {
				continue // see dsnAttacks.linked and TestServerModeDetachedRolesOfAKilledRun
			}
			t.Run(fmt.Sprintf("killed=%v/%s", killed, a.name), func(t *testing.T) {
				t.Parallel()
				runDSNAttack(t, a.sql, a.midRun, killed)
			})
		}
	}
}

// dsnAttackServer lends t a server with the tenant's state (borrowTenantServer), and returns it
// with a superuser session and the state before any run.
func dsnAttackServer(t *testing.T) (*scratchtest.DSNServer, *pgx.Conn, []string) {
	t.Helper()
	s := borrowTenantServer(t)
	return s.srv, s.admin, slices.Clone(s.before)
}

func runDSNAttack(t *testing.T, sql, midRun string, killed bool) {
	lent := borrowTenantServer(t)
	srv, admin, before := lent.srv, lent.admin, slices.Clone(lent.before)
	ctx := context.Background()
	var log strings.Builder
	run, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	db, err := run.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkMarks(t, db)
	if midRun != "" {
		if _, err := admin.Exec(ctx, midRun); err != nil {
			t.Fatal(err)
		}
	}
	// The attack may end with a refusal of the server; what ran before it stays, as it would.
	if err := sqlscript.ExecFile(ctx, db, "attack.sql", []byte(sql)); err != nil {
		t.Logf("the attack ends with: %v", err)
	}
	if killed {
		run.Abandon()
		// The server ends the killed run's session (its lock) a moment later.
		for deadline := time.Now().Add(10 * time.Second); ; {
			var held bool
			if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted)`).Scan(&held); err != nil {
				t.Fatal(err)
			}
			if !held || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		dropped, err := scratch.Cleanup(ctx, srv.DSN, 0)
		if err != nil && strings.Contains(err.Error(), "REASSIGN OWNED") {
			// What a killed run's SQL took from another tenant cannot be given back without
			// knowing whose it was: cleanup drops nothing of it and says, in one line, what to
			// run; a superuser gives it back, and the next cleanup drops the rest.
			if strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "ALTER DATABASE") || fault.KindOf(err) != fault.KindEnv {
				t.Errorf("cleanup after a killed REASSIGN OWNED: %q, want one line saying what to run", err)
			}
			if _, err := admin.Exec(ctx, undoHandOver+"; ALTER DATABASE tenant_db IS_TEMPLATE false ALLOW_CONNECTIONS true CONNECTION LIMIT 7"); err != nil {
				t.Fatal(err)
			}
			dropped, err = scratch.Cleanup(ctx, srv.DSN, 0)
		}
		if err != nil {
			t.Errorf("cleanup after the killed run: %v (dropped %v)", err, dropped)
		}
	} else if err := run.Close(); err != nil {
		t.Errorf("the run's end: %v", err)
	} else if midRun != "" && strings.Contains(sql, "TO CURRENT_USER") && run.Major() >= 16 && !strings.Contains(log.String(), "user SQL took database") {
		// (15 refuses the REASSIGN itself: changing a database's owner needs CREATEDB there.)
		t.Errorf("the run took the tenant's database and did not say it gave it back; its log:\n%s", log.String())
	}
	if midRun != "" {
		// No role of the run's is left owning what the other client handed over; then that
		// client takes its databases back, and everything else must be as before.
		if roles, want := roleLines(serverState(t, admin)), roleLines(before); !slices.Equal(roles, want) {
			t.Errorf("roles after the run: %q, want %q", roles, want)
		}
		if _, err := admin.Exec(ctx, undoHandOver); err != nil {
			t.Fatal(err)
		}
	}
	after := serverState(t, admin)
	if !slices.Equal(after, before) {
		t.Errorf("the server after the run differs from before it:\n  before %q\n  after  %q", before, after)
	}
	next, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
	if err != nil {
		t.Fatalf("a later run: %v", err)
	}
	if err := next.Close(); err != nil {
		t.Errorf("a later run's end: %v", err)
	}
	if dropped, err := scratch.Cleanup(ctx, srv.DSN, 0); err != nil || len(dropped) > 0 {
		t.Errorf("cleanup after a later run: dropped %v, %v; want nothing, exit 0", dropped, err)
	}
	if after := serverState(t, admin); !slices.Equal(after, before) {
		t.Errorf("the server after a later run differs from before:\n  before %q\n  after  %q", before, after)
	}
	// The server goes to the next case: memberships, settings, marks, tablespaces and prepared
	// transactions are as before too.
	if after := wholeState(t, admin); !slices.Equal(after, lent.whole) {
		t.Errorf("the server after the run and a later one differs from before:\n  before %q\n  after  %q", lent.whole, after)
	}
}

// A role the killed run's SQL detached from every tie cannot be told by a sweep from one another
// client made since; the sweep drops the rest and leaves it (the run that made it would have
// dropped it). The test pins that boundary, so that a change to it is deliberate.
func TestServerModeDetachedRolesOfAKilledRun(t *testing.T) {
	scratchtest.NeedPostgres(t)
	srv, admin, before := dsnAttackServer(t)
	ctx := context.Background()
	run, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
	if err != nil {
		t.Fatal(err)
	}
	db, err := run.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scratchtest.Exec(t, db, "attack.sql", "CREATE ROLE lc_maker NOLOGIN CREATEROLE;\n"+grantSelf("lc_maker")+
		"SET ROLE lc_maker;\nCREATE ROLE lc_orphan NOLOGIN;\nRESET ROLE;\nDROP ROLE lc_maker;")
	run.Abandon()
	sweep(t, srv.DSN)
	after := serverState(t, admin)
	if want := sorted(append(slices.Clone(before), "role lc_orphan login false createrole false createdb false")); !slices.Equal(after, want) {
		t.Errorf("after cleanup of the killed run:\n  got  %q\n  want %q", after, want)
	}
	if _, err := admin.Exec(ctx, "DROP ROLE lc_orphan"); err != nil { // the server can serve another test
		t.Fatal(err)
	}
}

// A server on which the migrations' role would, through the Supabase API roles it joins, hold
// the privileges of whoever owns a database or tablespace, of a superuser or of a role that
// reaches the server's programs or files, is refused before the run creates anything: DROP
// DATABASE needs only its owner's privileges, and nothing afterwards could undo it.
func TestServerModeRefusesServersWhoseAPIRolesHoldSomething(t *testing.T) {
	scratchtest.NeedPostgres(t)
	for _, c := range []struct{ name, setup, held, undo string }{
		{"a database owned by service_role", "CREATE DATABASE tenant_x OWNER service_role", `database "tenant_x" (owned by "service_role")`,
			"DROP DATABASE tenant_x"},
		{"a database owned by authenticated", "CREATE DATABASE tenant_x OWNER authenticated", `database "tenant_x" (owned by "authenticated")`,
			"DROP DATABASE tenant_x"},
		{"a database owned by a role anon belongs to", "CREATE ROLE holder NOLOGIN; GRANT holder TO anon; CREATE ROLE deep NOLOGIN; GRANT deep TO holder; CREATE DATABASE tenant_x OWNER deep", `database "tenant_x" (owned by "deep")`,
			"DROP DATABASE tenant_x; DROP ROLE deep; DROP ROLE holder"},
		{"a tablespace owned by anon", "CREATE TABLESPACE tenant_space OWNER anon LOCATION '{dir}'", `tablespace "tenant_space" (owned by "anon")`,
			"DROP TABLESPACE tenant_space"},
		{"service_role runs server programs", "GRANT pg_execute_server_program TO service_role", `role "pg_execute_server_program"`,
			"REVOKE pg_execute_server_program FROM service_role"},
		{"service_role belongs to a superuser", "CREATE ROLE boss SUPERUSER NOLOGIN; GRANT boss TO service_role", `role "boss"`,
			"DROP ROLE boss"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, admin, _ := dsnAttackServer(t)
			ctx := context.Background()
			setup := strings.ReplaceAll(c.setup, "{dir}", tablespaceDir(t, srv))
			for _, sql := range strings.Split(setup, "; ") {
				if _, err := admin.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			before := serverState(t, admin)
			run, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
			if err == nil {
				run.Close()
				t.Fatal("the run started")
			}
			if fault.KindOf(err) != fault.KindEnv || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.held) {
				t.Errorf("got %q (%v), want one line naming %s (exit 3)", err, fault.KindOf(err), c.held)
			}
			if after := serverState(t, admin); !slices.Equal(after, before) {
				t.Errorf("the refused run changed the server:\n  before %q\n  after  %q", before, after)
			}
			// Undone, the server can serve another test (borrowTenantServer checks it).
			for _, sql := range strings.Split(c.undo, "; ") {
				if _, err := admin.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
		})
	}
}

// tablespaceDir makes an empty directory the server's OS user owns, for a tablespace.
func tablespaceDir(t *testing.T, srv *scratchtest.DSNServer) string {
	t.Helper()
	dir, err := os.MkdirTemp(srv.Dir, "space-") // the server may have served a test with one before
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
