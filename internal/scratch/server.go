package scratch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/privileged"
)

// NamePrefix starts the name of every database and role scratch creates on a server; the run's
// id follows it (see [Cleanup]).
const NamePrefix = "ledgercheck_"

// Options configure a [Server].
type Options struct {
	// PGBin is the directory of the PostgreSQL server binaries for the embedded cluster; empty
	// means Postgres's version directory, else $LEDGERCHECK_PG_BIN, else `pg_config --bindir`,
	// else /usr/lib/postgresql/15/bin (see [FindBinDir]).
	PGBin string
	// Postgres is the PostgreSQL major version the run asks for (one of [Versions]; 0: the
	// version $LEDGERCHECK_PG names, else none). The embedded cluster runs it, from its
	// directory unless PGBin is set, and a --dsn server must run it; a server of another major
	// version is an environment error. With none asked for, any supported version will do.
	Postgres int
	// DSN, when set, selects server mode: scratch databases are created on that server instead
	// of in an embedded cluster. Its role must be a superuser (see [Start]).
	DSN string
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// StatementTimeout and LockTimeout apply to every statement of user SQL (0: 60s and 10s).
	StatementTimeout, LockTimeout time.Duration
	// InstallTimeout bounds one script run by [Database.ExecFile] as a whole (0: 120s), so that
	// a migration that keeps issuing statements cannot hold the gate either.
	InstallTimeout time.Duration

	// Cache, in the embedded mode, takes the cluster and Templates from the cache across runs
	// (cache.go) when it has them, and otherwise builds them before Start returns, before any
	// other SQL runs, and saves them there. A --dsn server is not cached.
	Cache bool
	// Templates are the templates the run will use; with Cache they come from the cache, without
	// it they are built on first use as any other.
	Templates []TemplateSpec

	// Limits cap the run's resources (limits.go; zero fields: the defaults).
	Limits Limits

	// noGuard starts a PostgreSQL 15 embedded cluster without the role guard, for the tests that
	// prove each of the other defence layers holds on its own.
	noGuard bool
}

// Server hands out scratch databases. It is safe for concurrent use.
//
// User SQL runs on sessions that log in as the install role: `postgres` in the embedded cluster
// (shaped like Supabase's), a role of the run's own on a --dsn server. It is never a superuser,
// has no CREATEDB, and has CREATEROLE only where the server keeps CREATEROLE from granting roles
// it does not administer (PostgreSQL 16 and later, or 15 with ledgercheck's guard module), so it
// cannot grant itself pg_execute_server_program or any role it did not create.
type Server struct {
	opts Options
	cl   *cluster // nil in server mode
	// admin is a superuser in the maintenance database. Every session ledgercheck opens with it
	// (and its copies: template builds and descriptions, snapshots, audits, digests, drops,
	// cleanup) is a privileged session: it starts with search_path = pg_catalog
	// (privileged.Config, set where the configuration is made: cluster.adminConfig,
	// connectServer, Cleanup) and runs only SQL that names pg_catalog's functions, operators and
	// types (docs/architecture.md, "Privileged sessions"), so nothing the migration defined runs
	// with its privilege.
	admin     *pgx.ConnConfig
	adminRole string // its name
	major     int    // the server's major version
	version   int    // server_version_num, e.g. 170010
	runID     string // 12 hex digits: names this run's databases (and, on a server, roles)
	// ap are admin's idle sessions on the server's own database (adminpool.go).
	ap adminSessions

	installRole, installPass string // the role user SQL logs in as, and its password
	// readerRole reads table contents for the digests (Database.ConnectReader), with readerPass:
	// a login role of the run's own with BYPASSRLS and pg_read_all_data only, not a superuser
	// and not administered by the install role.
	readerRole, readerPass string
	// observerRole logs in as the Data API's login role does, with observerPass, to act as anon
	// and the signed-in personas (observer.go): no privilege of its own.
	observerRole, observerPass string
	// noCreateRole says why the install role has no CREATEROLE on this server ("" when it has).
	noCreateRole string

	// Server mode only.
	anchor     *pgx.Conn    // holds the run's locks for its whole life (see cleanup.go)
	apiCreated []string     // environment roles this run created on the server
	before     *sharedState // the server's roles and databases before the run made any (owned.go)
	started    time.Time    // when the run started, in its roles' mark

	saving chan struct{} // closed once the cache entry this run builds is written (cache.go)
	lim    limitState    // the statements the size watchdog may stop (limits.go)

	w warden // what user SQL does to the run's role and databases (warden.go)
	// roles hands the server's roles to one install at a time (roles.go).
	roles roleTurns

	rr runRoles // the roles a --dsn run made (runroles.go)

	lg logins    // the databases' login roles (login.go)
	uc userCode  // a script alone, or sessions of user code side by side (login.go)
	sn sentinels // kept between the scripts of their database (login.go)

	mu        sync.Mutex
	templates map[templateKey]*template
	tplSeq    int                             // numbers the templates' labels
	uses      templUses                       // the templates the run expects to use, and their parents (layers.go)
	envs      map[PrivilegeModel]*envTemplate // the environment each template copies (envtemplate.go)
	layersRun int                             // the layers the run's template builds ran
	created   []string                        // databases to drop on Close, in creation order
	seq       int                             // numbers the run's databases
	closed    bool
	leave     bool // Drop leaves databases to Close (see LeaveDatabasesToClose)
}

type template struct {
	once  sync.Once
	label string // names the database (see createDatabase)
	name  string
	err   error
	desc  []byte // what Base.Describe said of it (nil: not described); guarded by Server.mu
	// ownSettings: the database has settings of its own, which a copy would lose, so no
	// template is built from it (layers.go); guarded by Server.mu.
	ownSettings bool
}

// Start starts an embedded cluster, or connects to the server named by opts.DSN, checks that
// pgvector is available and creates the Supabase roles and the install role. Errors that the
// user must fix by installing or granting something are [fault.Env] errors.
//
// On a server (opts.DSN), the DSN's role must be a superuser: ledgercheck creates the Supabase
// API roles where they are missing, a login role for user SQL and the run's databases, and
// drops all of them when the run ends. Runs on one server take turns (an advisory lock), so that
// what one run's migrations do to cluster-wide roles cannot change another's verdict; a run
// also drops what killed runs left behind.
func Start(ctx context.Context, opts Options) (s *Server, err error) {
	if opts.Postgres, err = RequestedVersion(opts.Postgres); err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.StatementTimeout == 0 {
		opts.StatementTimeout = 60 * time.Second
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 10 * time.Second
	}
	if opts.InstallTimeout == 0 {
		opts.InstallTimeout = 120 * time.Second
	}
	s = &Server{opts: opts, templates: map[templateKey]*template{}, runID: randomSuffix(), installPass: newSecret(), readerPass: newSecret(), observerPass: newSecret(), started: time.Now()}
	t0 := time.Now()
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	if opts.DSN == "" {
		bin, err := FindBinDir(opts.PGBin, opts.Postgres)
		if err != nil {
			return s, err
		}
		if err := s.startEmbedded(ctx, bin); err != nil {
			return s, err
		}
	} else {
		if err := s.connectServer(ctx); err != nil {
			return s, err
		}
		s.installRole, s.readerRole, s.observerRole = NamePrefix+s.runID, readerName(s.runID), observerName(s.runID)
		if err := s.setUp(ctx); err != nil {
			return s, err
		}
	}
	fmt.Fprintf(opts.Log, "scratch: %s ready in %s\n", s.describe(), time.Since(t0).Round(time.Millisecond))
	return s, nil
}

// setUp checks the server and creates the roles, on one superuser session: what every server
// needs before its first database.
func (s *Server) setUp(ctx context.Context) error {
	conn, giveBack, err := s.adminSession(ctx)
	if err != nil {
		return fault.Env(serverErrorf(err, "connecting"))
	}
	defer giveBack()
	if err := s.checkVector(ctx, conn); err != nil {
		return err
	}
	if err := s.checkGuard(ctx, conn); err != nil {
		return err
	}
	if s.cl == nil {
		// Under the turn lock, before the run makes anything: what is on the server now is not
		// the run's, and is never dropped (owned.go).
		before, err := readSharedState(ctx, conn)
		if err != nil {
			return err
		}
		s.before = before
		if err := checkInherited(ctx, conn); err != nil {
			return err
		}
	}
	if err := s.createRoles(ctx, conn); err != nil {
		return err
	}
	return s.hold(ctx)
}

func (s *Server) describe() string {
	if s.cl != nil {
		return fmt.Sprintf("embedded PostgreSQL %s cluster (sandboxed) in %s", s.Version(), s.cl.dir)
	}
	return fmt.Sprintf("PostgreSQL %s server %s", s.Version(), s.admin.Host)
}

// Embedded reports whether the server is an embedded cluster (as opposed to --dsn).
func (s *Server) Embedded() bool { return s.cl != nil }

// Major returns the server's major version (15, 17, ...).
func (s *Server) Major() int { return s.major }

// Version returns the server's version, major and minor, as "17.10" (from server_version_num,
// without a distribution's suffix).
func (s *Server) Version() string { return formatVersion(s.version) }

// formatVersion renders a server_version_num (170010) as "17.10".
func formatVersion(num int) string { return fmt.Sprintf("%d.%d", num/10000, num%10000) }

// Dir returns the embedded cluster's private directory, or "" in server mode.
func (s *Server) Dir() string {
	if s.cl == nil {
		return ""
	}
	return s.cl.dir
}

// InstallRole returns the name of the role user SQL runs as, and AdminRole the superuser's: in
// the embedded cluster postgres and supabase_admin, as on Supabase; on a --dsn server a role of
// the run's own and the DSN's role. Catalog snapshots show them as postgres and supabase_admin
// in both modes (see [Database.RoleAliases]).
func (s *Server) InstallRole() string { return s.installRole }

// AdminRole: see [Server.InstallRole].
func (s *Server) AdminRole() string { return s.adminRole }

// connectServer connects to the --dsn server, checks what ledgercheck needs of it, takes the
// run's locks and removes what killed runs left.
func (s *Server) connectServer(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(s.opts.DSN)
	if err != nil {
		return fault.Input(fmt.Errorf("--dsn: %w", err))
	}
	privileged.Config(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fault.Env(serverErrorf(err, "cannot connect to --dsn server"))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var super bool
	var role, db string
	var version int
	if err := conn.QueryRow(ctx, `SELECT rolsuper, current_user, pg_catalog.current_database(), pg_catalog.current_setting('server_version_num')::int
		FROM pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user`).Scan(&super, &role, &db, &version); err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: reading the role's attributes"))
	}
	var readOnly string
	if err := conn.QueryRow(ctx, `SHOW transaction_read_only`).Scan(&readOnly); err == nil && readOnly == "on" {
		return fault.Env(fmt.Errorf("--dsn server is read-only for role %q (transaction_read_only = on): ledgercheck creates its own scratch databases; use a primary and a role without default_transaction_read_only", role))
	}
	if !super {
		return fault.Env(fmt.Errorf("--dsn role %q is not a superuser: ledgercheck needs one to create the Supabase roles, a login role of its own for user SQL (which never runs as the DSN's role) and its scratch databases; use the server's superuser (POSTGRES_USER of a postgres or pgvector container)", role))
	}
	if strings.HasPrefix(db, NamePrefix) {
		return fault.Input(fmt.Errorf("--dsn names database %q, which looks like a ledgercheck scratch database; name a maintenance database such as postgres", db))
	}
	if version < 150000 {
		return fault.Env(fmt.Errorf("the --dsn server runs PostgreSQL %s; ledgercheck needs 15 or later", formatVersion(version)))
	}
	if err := checkVersion(s.opts.Postgres, version/10000, "the --dsn server runs"); err != nil {
		return err
	}
	cfg.BuildFrontend = readLimited(s.limits().ReadSize)
	s.admin, s.adminRole, s.major, s.version = cfg, role, version/10000, version
	return s.lockRun(ctx)
}

// checkVector checks, on conn (a superuser session), that pgvector is available, and reads the
// server's version.
func (s *Server) checkVector(ctx context.Context, conn *pgx.Conn) error {
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name OPERATOR(pg_catalog.=) 'vector'),
		pg_catalog.current_setting('server_version_num')::int`).Scan(&ok, &s.version); err != nil {
		return fault.Env(serverErrorf(err, "checking for pgvector"))
	}
	if !ok {
		if s.cl != nil {
			return fault.Env(errors.New("pgvector is not installed for this PostgreSQL (no vector.control in its extension directory): run `" + setupCommand(s.major) + "` as root"))
		}
		return fault.Env(errors.New("pgvector is not installed on the --dsn server: install the pgvector extension there (for example the pgvector/pgvector image in CI), or drop --dsn to use an embedded cluster"))
	}
	return nil
}

// createRoles creates, on conn (a superuser session), the Supabase API roles where they are
// missing and the install role.
func (s *Server) createRoles(ctx context.Context, conn *pgx.Conn) error {
	if s.cl == nil {
		var err error
		if s.apiCreated, err = missingRoles(ctx, conn, apiRoles); err != nil {
			return fault.Env(err)
		}
	}
	if _, err := conn.Exec(ctx, RolesScript().SQL); err != nil {
		return fault.Env(serverErrorf(err, "creating the Supabase roles"))
	}
	for _, r := range s.apiCreated {
		// The mark lets a later run or `ledgercheck cleanup` drop what a killed run created.
		if _, err := conn.Exec(ctx, "COMMENT ON ROLE "+ident(r)+" IS "+quoteLiteral(s.mark())); err != nil {
			return fault.Env(serverErrorf(err, "marking role %s", r))
		}
	}
	attrs := "LOGIN NOSUPERUSER NOCREATEDB NOREPLICATION BYPASSRLS INHERIT"
	if s.noCreateRole == "" {
		attrs += " CREATEROLE"
	}
	pw, err := passwordSQL(s.installPass, s.readerPass, s.observerPass)
	if err != nil {
		return fault.Env(err)
	}
	sql := fmt.Sprintf("CREATE ROLE %[1]s %[2]s PASSWORD %[3]s IN ROLE anon, authenticated, service_role;\n"+
		"ALTER ROLE %[1]s SET search_path = \"$user\", public, extensions;\n", ident(s.installRole), attrs, pw[0])
	// The reader logs in, bypasses row level security (a digest reads every row) and holds
	// pg_read_all_data; nothing else.
	sql += fmt.Sprintf("CREATE ROLE %s LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION BYPASSRLS INHERIT PASSWORD %s IN ROLE pg_read_all_data;\n",
		ident(s.readerRole), pw[1])
	sql += s.observerSQL(pw[2])
	if s.cl == nil {
		for _, r := range []string{s.installRole, s.readerRole, s.observerRole} {
			sql += "COMMENT ON ROLE " + ident(r) + " IS " + quoteLiteral(s.mark()) + ";\n"
		}
	}
	// One transaction: a role of this run exists only with its mark.
	if _, err := conn.Exec(ctx, "BEGIN;\n"+sql+"COMMIT;"); err != nil {
		return fault.Env(serverErrorf(err, "creating the install role %s", s.installRole))
	}
	return nil
}

// apiRoles are the Supabase roles every scratch database expects (internal/scratch/env/00_roles.sql).
var apiRoles = []string{"anon", "authenticated", "service_role", "authenticator", "supabase_auth_admin", "supabase_storage_admin",
	"dashboard_user", "supabase_functions_admin", "supabase_realtime_admin", "supabase_replication_admin", "supabase_read_only_user", "pgbouncer"}

// missingRoles returns the names among names that are not roles on the server.
func missingRoles(ctx context.Context, conn *pgx.Conn, names []string) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT n FROM pg_catalog.unnest($1::pg_catalog.text[]) n
		WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname OPERATOR(pg_catalog.=) n) ORDER BY 1`, names)
	if err != nil {
		return nil, serverErrorf(err, "listing roles")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, serverErrorf(err, "listing roles")
	}
	return out, nil
}

// NewDatabase returns a new scratch database with the Supabase environment and the Open Brain
// prerequisites installed at vector dimension dim: [Server.NewDatabaseFrom] with the zero [Base].
func (s *Server) NewDatabase(ctx context.Context, dim int) (*Database, error) {
	return s.NewDatabaseFrom(ctx, dim, Base{})
}

// NewEnvDatabase returns a new scratch database with the Supabase environment only (no
// prerequisites), for SQL that brings its own.
func (s *Server) NewEnvDatabase(ctx context.Context) (*Database, error) {
	db, err := s.createDatabase(ctx, 0, "", "")
	if err != nil {
		return nil, err
	}
	if err := s.execAdminIn(ctx, db.Name, s.environment()...); err != nil {
		s.dropQuiet(db.Name)
		return nil, err
	}
	return db, nil
}

// environment returns the per-database Supabase environment scripts for this server's roles.
func (s *Server) environment() []EnvScript {
	return EnvironmentScripts(s.installRole, s.adminRole)
}

// template returns the name of the template database of dim and base, building it on first use:
// a copy of the environment of base's privilege model (built once: envtemplate.go), then the
// Open Brain prerequisites (unless base.NoOpenBrain), then base's layers and Prepare; or, when a known template holds a prefix of its layers, a copy of that one and the
// layers it lacks (layers.go).
func (s *Server) template(ctx context.Context, dim int, base Base) (string, error) {
	k := keyOfBase(dim, base)
	s.mu.Lock()
	t := s.templates[k]
	if t == nil {
		s.tplSeq++
		t = &template{label: k.label(s.tplSeq)}
		s.templates[k] = t
	}
	s.mu.Unlock()
	t.once.Do(func() {
		defer s.built(k)
		t0 := time.Now()
		from, layers, err := s.parentOf(ctx, dim, base)
		if err != nil {
			t.err = err
			return
		}
		fresh := from == "" // built from the environment of its model (envtemplate.go)
		if fresh {
			if from, t.err = s.environmentTemplate(ctx, base.Privileges); t.err != nil {
				return
			}
		}
		db, err := s.createDatabase(ctx, dim, from, t.label)
		if err != nil {
			t.err = err
			return
		}
		t.name = db.Name
		// One superuser session checks the template's settings and describes it; it is
		// closed before anything copies the template.
		conn, err := s.connectAdminIn(ctx, db.Name)
		if err != nil {
			t.err = err
			return
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if fresh && !base.NoOpenBrain {
			if t.err = db.execPrerequisites(ctx); t.err != nil {
				t.err = fmt.Errorf("installing the prerequisites at dimension %d: %w", db.Dim, t.err)
				return
			}
		}
		for _, l := range layers {
			if err := l.Run(ctx, db); err != nil {
				t.err = err
				return
			}
		}
		if base.Prepare != nil {
			if err := base.Prepare(ctx, db); err != nil {
				t.err = err
				return
			}
		}
		own, err := ownSettings(ctx, conn, db)
		if err != nil {
			t.err = err
			return
		}
		s.mu.Lock()
		t.ownSettings = own
		s.layersRun += len(layers)
		s.mu.Unlock()
		if base.Describe != nil && !own {
			desc, err := base.Describe(ctx, conn, db)
			if err != nil {
				t.err = err
				return
			}
			s.mu.Lock()
			t.desc = desc
			s.mu.Unlock()
		}
		fmt.Fprintf(s.opts.Log, "scratch: template for dimension %d built in %s\n", dim, time.Since(t0).Round(time.Millisecond))
	})
	if t.err != nil {
		return "", t.err
	}
	return t.name, nil
}

// createDatabase creates a database named after the run, owned by the install role (as
// Supabase's postgres owns its database). The name is chosen, and the run's lock held, before
// the database exists, so a run killed at any moment leaves only names [Cleanup] recognises.
//
// label names the database after the run's id ("t1536" for a template); "" numbers it.
func (s *Server) createDatabase(ctx context.Context, dim int, tpl, label string) (*Database, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("scratch: server is closed")
	}
	s.seq++
	if label == "" {
		label = strconv.Itoa(s.seq)
	}
	name := fmt.Sprintf("%s%s_%s", NamePrefix, s.runID, label)
	s.created = append(s.created, name)
	s.mu.Unlock()
	sql := "CREATE DATABASE " + ident(name) + " OWNER " + ident(s.installRole)
	if tpl != "" {
		s.closeSentinels(tpl) // a source of a copy has no other session
		sql += " TEMPLATE " + ident(tpl) + " STRATEGY FILE_COPY"
	} else {
		sql += " TEMPLATE template0"
	}
	conn, giveBack, err := s.adminSession(ctx)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "connecting"))
	}
	defer giveBack()
	// The statement runs to its end even when ctx is cancelled (Ctrl-C, SIGTERM): pgx would
	// return at once while the server may still finish the copy, after Close has dropped
	// "nothing", and the database would be left behind. A copy takes milliseconds.
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		_, err = conn.Exec(done, sql)
		var pe *pgconn.PgError
		// 55006: the template is briefly in use (another copy is being made from it).
		if err != nil && errors.As(err, &pe) && pe.Code == "55006" && attempt < 50 {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		break
	}
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "creating scratch database"))
	}
	if err := s.createLogin(done, conn, name); err != nil {
		return nil, err
	}
	// Held before any user SQL runs in it (warden.go).
	if err := s.holdDatabase(done, name); err != nil {
		return nil, err
	}
	return &Database{srv: s, Name: name, Dim: dim}, nil
}

// execAdminIn runs scripts as the admin role in database db.
func (s *Server) execAdminIn(ctx context.Context, db string, scripts ...EnvScript) error {
	conn, err := s.connectAdminIn(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return s.execAdminOn(ctx, conn, scripts...)
}

// connectAdminIn opens a session of the admin role in database db.
func (s *Server) connectAdminIn(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg := s.admin.Copy()
	cfg.Database = db
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "connecting"))
	}
	return conn, nil
}

// ownSettings reports whether db, the template conn is a superuser session of, has settings of
// its own (ALTER DATABASE ... SET, ALTER ROLE ... IN DATABASE ... SET), which its copies would not
// have (CREATE DATABASE copies the files, not the database's rows of pg_db_role_setting): such a
// template is not described, and no other template is built from it.
func ownSettings(ctx context.Context, conn *pgx.Conn, db *Database) (bool, error) {
	var own bool
	err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid OPERATOR(pg_catalog.=) s.setdatabase
		WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())`).Scan(&own)
	if err != nil {
		return false, fault.Env(serverErrorf(err, "describing the template %s", db.Name))
	}
	return own, nil
}

// execAdminOn runs scripts on conn, a session of the admin role.
func (s *Server) execAdminOn(ctx context.Context, conn *pgx.Conn, scripts ...EnvScript) error {
	for _, sc := range scripts {
		if _, err := conn.Exec(ctx, sc.SQL); err != nil {
			return fault.Env(serverErrorf(err, "applying internal/scratch/%s", sc.Name))
		}
	}
	return nil
}

// drop drops one database that this server created, which the warden lets go first.
func (s *Server) drop(ctx context.Context, name string) error {
	s.closeSentinels(name)
	return s.releaseDatabase(ctx, name, func() error { return s.dropHeld(ctx, name) })
}

// dropHeld is drop, once the warden let the database go.
func (s *Server) dropHeld(ctx context.Context, name string) error {
	conn, giveBack, err := s.adminSession(ctx)
	if err != nil {
		return serverErrorf(err, "connecting to drop %s", name)
	}
	defer giveBack()
	if s.cl != nil {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
			return serverErrorf(err, "dropping %s", name)
		}
	} else if _, err := dropDatabases(ctx, conn, s.admin, []string{name}); err != nil {
		return err
	}
	s.mu.Lock()
	for i, n := range s.created {
		if n == name {
			s.created = append(s.created[:i], s.created[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	return nil
}

func (s *Server) dropQuiet(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.drop(ctx, name)
}

// LeaveDatabasesToClose makes [Database.Drop] leave each database to [Server.Close], which
// removes them all at once (the embedded cluster's directory goes with them; on a --dsn server
// it drops them): for a caller that closes the server as soon as its work is done, it saves a
// session and a DROP DATABASE, with the checkpoint that forces, per database.
func (s *Server) LeaveDatabasesToClose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leave = true
}

// Close stops the embedded cluster and removes its directory, or, on a server, drops what the
// run created: its databases, the roles its install role administers (the roles user SQL
// created), the install role, and the Supabase API roles the run created; then it releases the
// run's locks. It is safe to call more than once and does not depend on any context that may
// already be cancelled.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	names := append([]string(nil), s.created...)
	s.mu.Unlock()
	if s.saving != nil {
		<-s.saving
	}
	s.unhold()
	s.closeKept(true)
	if s.cl != nil {
		// The whole cluster goes; no need to drop its databases one by one.
		err := s.cl.stop()
		fmt.Fprintf(s.opts.Log, "scratch: the embedded server's processes used %s of CPU\n", s.cl.cpu.Round(time.Millisecond))
		return err
	}
	if s.admin == nil || s.anchor == nil {
		return nil // never connected
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	slices.Reverse(names)
	var err error
	if s.before != nil {
		err = s.closeServerRun(ctx, s.anchor, names)
	} else {
		_, err = dropDatabases(ctx, s.anchor, s.admin, names)
	}
	s.anchor.Close(ctx) // releases the run's locks
	return err
}

// readerName is the name of the reader role of run id on a --dsn server (in the embedded
// cluster it is ledgercheck_reader).
func readerName(id string) string { return NamePrefix + id + "_reader" }

// readerConfig is the connection configuration of the reader role in database db: a copy of
// the superuser's (a privileged session: search_path = pg_catalog from its start) with the
// reader's name and password.
func (s *Server) readerConfig(db string) *pgx.ConnConfig {
	cfg := s.admin.Copy()
	cfg.Database = db
	cfg.User, cfg.Password = s.readerRole, s.readerPass
	cfg.RuntimeParams["application_name"] = "ledgercheck (digest reader)"
	return cfg
}

// userConfig is the connection configuration for user SQL in database db: the database's login
// role, which starts as the install role (login.go), so that user SQL runs as the install role
// and no other session can end it.
func (s *Server) userConfig(db string) *pgx.ConnConfig {
	cfg := s.admin.Copy()
	cfg.Database = db
	cfg.User, cfg.Password = db, s.installPass
	cfg.RuntimeParams = map[string]string{
		"role":                s.installRole,
		"search_path":         `"$user", public, extensions`,
		"statement_timeout":   fmt.Sprint(s.opts.StatementTimeout.Milliseconds()),
		"lock_timeout":        fmt.Sprint(s.opts.LockTimeout.Milliseconds()),
		"application_name":    "ledgercheck",
		"client_min_messages": "warning",
		// A statement of a run that was killed stops within a second on a --dsn server,
		// instead of running to its end, so that the run's locks and databases go with it.
		"client_connection_check_interval": "1000",
	}
	maps.Copy(cfg.RuntimeParams, readingStartup) // reading.go
	return cfg
}

// uri renders cfg as a libpq URI that psql accepts.
func uri(cfg *pgx.ConnConfig) string {
	u := url.URL{Scheme: "postgresql", Path: "/" + cfg.Database}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	q := url.Values{}
	if strings.HasPrefix(cfg.Host, "/") {
		q.Set("host", cfg.Host)
	} else {
		u.Host = cfg.Host
	}
	q.Set("port", fmt.Sprint(cfg.Port))
	u.RawQuery = q.Encode()
	return u.String()
}

func randomSuffix() string { return newSecret()[:12] }

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// serverMessage returns the server's own message for err (with its detail and hint), or err's text.
func serverMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Severity + ": " + pe.Message + " (SQLSTATE " + pe.Code + ")"
		if pe.Detail != "" {
			msg += "; " + pe.Detail
		}
		if pe.Hint != "" {
			msg += "; hint: " + pe.Hint
		}
		return msg
	}
	return err.Error()
}

// serverErrorf is the error "what: the server's message" ([serverMessage], one line) with err
// behind it, so that errors.As finds its *pgconn.PgError from any caller up.
func serverErrorf(err error, format string, args ...any) error {
	return fault.Wrapf(err, "%s: %s", fmt.Sprintf(format, args...), serverMessage(err))
}
