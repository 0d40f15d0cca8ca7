package scratch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"ledgercheck/internal/fault"
	"ledgercheck/migrations"
)

// NamePrefix starts the name of every database scratch creates; `ledgercheck cleanup` matches it.
const NamePrefix = "ledgercheck_"

// Options configure a [Server].
type Options struct {
	// PGBin is the directory of the PostgreSQL server binaries for the embedded cluster; empty
	// means `pg_config --bindir`, else /usr/lib/postgresql/15/bin.
	PGBin string
	// DSN, when set, selects server mode: scratch databases are created on that server instead
	// of in an embedded cluster.
	DSN string
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// StatementTimeout and LockTimeout apply to every statement of user SQL (0: 60s and 10s).
	StatementTimeout, LockTimeout time.Duration
	// InstallTimeout bounds one script run by [Database.ExecFile] as a whole (0: 120s), so that
	// a migration that keeps issuing statements cannot hold the gate either.
	InstallTimeout time.Duration
}

// Server hands out scratch databases. It is safe for concurrent use.
type Server struct {
	opts        Options
	cl          *cluster        // nil in server mode
	admin       *pgx.ConnConfig // a superuser (embedded) or the DSN's role, in the maintenance database
	installRole string          // the role user SQL runs as
	// setRole is set when user SQL connects as the DSN's role and assumes installRole (server
	// mode, where only the DSN's role can log in).
	setRole bool
	// baselineRoles are the roles a --dsn server had before the run (see dropNewRoles).
	baselineRoles []string

	mu        sync.Mutex
	templates map[int]*template
	created   []string // databases to drop on Close, in creation order
	closed    bool
}

type template struct {
	once sync.Once
	name string
	err  error
}

// Start starts an embedded cluster, or connects to the server named by opts.DSN, checks that
// pgvector is available and creates the Supabase roles. Errors that the user must fix by
// installing or granting something are [fault.Env] errors.
func Start(ctx context.Context, opts Options) (s *Server, err error) {
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
	s = &Server{opts: opts, templates: map[int]*template{}}
	t0 := time.Now()
	if opts.DSN != "" {
		if err := s.connectServer(ctx); err != nil {
			return nil, err
		}
	} else {
		bin, err := FindBinDir(opts.PGBin)
		if err != nil {
			return nil, err
		}
		cl, err := startCluster(ctx, bin)
		if err != nil {
			if cl != nil {
				cl.stop()
			}
			return nil, err
		}
		s.cl = cl
		s.admin, _ = pgx.ParseConfig("")
		s.admin.Host, s.admin.Port, s.admin.User, s.admin.Database = cl.dir, clusterPort, bootstrapUser, "postgres"
		s.installRole = "postgres"
	}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	if err := s.checkVector(ctx); err != nil {
		return s, err
	}
	if s.cl == nil {
		if s.baselineRoles, err = s.roles(ctx); err != nil {
			return s, fault.Env(err)
		}
	}
	if err := s.execAdmin(ctx, s.admin, migrations.Roles()); err != nil {
		return s, fault.Env(fmt.Errorf("creating the Supabase roles: %w", err))
	}
	if s.cl == nil {
		if err := s.chooseInstallRole(ctx); err != nil {
			return s, err
		}
	}
	fmt.Fprintf(opts.Log, "scratch: %s ready in %s\n", s.describe(), time.Since(t0).Round(time.Millisecond))
	return s, nil
}

func (s *Server) describe() string {
	if s.cl != nil {
		return "embedded cluster in " + s.cl.dir
	}
	return "server " + s.admin.Host
}

// Embedded reports whether the server is an embedded cluster (as opposed to --dsn).
func (s *Server) Embedded() bool { return s.cl != nil }

// Dir returns the embedded cluster's private directory, or "" in server mode.
func (s *Server) Dir() string {
	if s.cl == nil {
		return ""
	}
	return s.cl.dir
}

func (s *Server) connectServer(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(s.opts.DSN)
	if err != nil {
		return fault.Input(fmt.Errorf("--dsn: %v", err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fault.Env(fmt.Errorf("cannot connect to --dsn server: %s", serverMessage(err)))
	}
	defer conn.Close(ctx)
	var super, createdb bool
	var role, db string
	if err := conn.QueryRow(ctx, `SELECT rolsuper, rolcreatedb, current_user, current_database() FROM pg_roles WHERE rolname = current_user`).Scan(&super, &createdb, &role, &db); err != nil {
		return fault.Env(fmt.Errorf("--dsn server: reading the role's attributes: %s", serverMessage(err)))
	}
	var readOnly string
	if err := conn.QueryRow(ctx, `SHOW transaction_read_only`).Scan(&readOnly); err == nil && readOnly == "on" {
		return fault.Env(fmt.Errorf("--dsn server is read-only for role %q (transaction_read_only = on): ledgercheck creates its own scratch databases; use a primary and a role without default_transaction_read_only", role))
	}
	if !super && !createdb {
		return fault.Env(fmt.Errorf("--dsn role %q lacks CREATEDB: ledgercheck creates its own scratch databases; run `ALTER ROLE %s CREATEDB` or use another role", role, pgx.Identifier{role}.Sanitize()))
	}
	if strings.HasPrefix(db, NamePrefix) {
		return fault.Input(fmt.Errorf("--dsn names database %q, which looks like a ledgercheck scratch database; name a maintenance database such as postgres", db))
	}
	s.admin = cfg
	s.installRole = role
	return nil
}

func (s *Server) checkVector(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(ctx)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&ok); err != nil {
		return fault.Env(fmt.Errorf("checking for pgvector: %s", serverMessage(err)))
	}
	if !ok {
		if s.cl != nil {
			return fault.Env(errors.New("pgvector is not installed for this PostgreSQL (no vector.control in its extension directory): run `make setup` as root"))
		}
		return fault.Env(errors.New("pgvector is not installed on the --dsn server: install the pgvector extension there (for example the pgvector/pgvector image in CI), or drop --dsn to use an embedded cluster"))
	}
	return nil
}

// NewDatabase returns a new scratch database with the Supabase environment and the Open Brain
// prerequisites installed at vector dimension dim. The first call for a dimension builds its
// template; later calls copy it.
func (s *Server) NewDatabase(ctx context.Context, dim int) (*Database, error) {
	if dim < 1 || dim > 16000 {
		return nil, fault.Input(fmt.Errorf("dimension %d is out of range (1 to 16000)", dim))
	}
	tpl, err := s.template(ctx, dim)
	if err != nil {
		return nil, err
	}
	return s.createDatabase(ctx, dim, tpl)
}

// NewEnvDatabase returns a new scratch database with the Supabase environment only (no
// prerequisites), for SQL that brings its own.
func (s *Server) NewEnvDatabase(ctx context.Context) (*Database, error) {
	db, err := s.createDatabase(ctx, 0, "")
	if err != nil {
		return nil, err
	}
	if err := s.execAdminIn(ctx, db.Name, migrations.Environment()...); err != nil {
		s.dropQuiet(db.Name)
		return nil, err
	}
	return db, nil
}

func (s *Server) template(ctx context.Context, dim int) (string, error) {
	s.mu.Lock()
	t := s.templates[dim]
	if t == nil {
		t = &template{}
		s.templates[dim] = t
	}
	s.mu.Unlock()
	t.once.Do(func() {
		t0 := time.Now()
		db, err := s.createDatabase(ctx, dim, "")
		if err != nil {
			t.err = err
			return
		}
		t.name = db.Name
		if err := s.execAdminIn(ctx, db.Name, migrations.Environment()...); err != nil {
			t.err = err
			return
		}
		for _, p := range migrations.Prerequisites() {
			if err := db.ExecFile(ctx, "migrations/"+p.Name, []byte(p.SQL)); err != nil {
				t.err = fmt.Errorf("installing the prerequisites at dimension %d: %w", dim, err)
				return
			}
		}
		fmt.Fprintf(s.opts.Log, "scratch: template for dimension %d built in %s\n", dim, time.Since(t0).Round(time.Millisecond))
	})
	if t.err != nil {
		return "", t.err
	}
	return t.name, nil
}

func (s *Server) createDatabase(ctx context.Context, dim int, tpl string) (*Database, error) {
	name := NamePrefix + randomSuffix()
	if tpl == "" && dim > 0 {
		name = fmt.Sprintf("%stpl%d_%s", NamePrefix, dim, randomSuffix())
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("scratch: server is closed")
	}
	s.created = append(s.created, name)
	s.mu.Unlock()
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " OWNER " + pgx.Identifier{s.installRole}.Sanitize()
	if tpl != "" {
		sql += " TEMPLATE " + pgx.Identifier{tpl}.Sanitize() + " STRATEGY FILE_COPY"
	} else {
		sql += " TEMPLATE template0"
	}
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.Background())
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
		return nil, fault.Env(fmt.Errorf("creating scratch database: %s", serverMessage(err)))
	}
	// The mark lets `ledgercheck cleanup` tell a live run's databases from a killed run's.
	if _, err := conn.Exec(done, "COMMENT ON DATABASE "+pgx.Identifier{name}.Sanitize()+" IS "+quoteLiteral(runMark(time.Now()))); err != nil {
		return nil, fault.Env(fmt.Errorf("marking scratch database %s: %s", name, serverMessage(err)))
	}
	return &Database{srv: s, Name: name, Dim: dim}, nil
}

// execAdminIn runs scripts as the admin role in database db.
func (s *Server) execAdminIn(ctx context.Context, db string, scripts ...migrations.Script) error {
	cfg := s.admin.Copy()
	cfg.Database = db
	return s.execAdmin(ctx, cfg, scripts...)
}

func (s *Server) execAdmin(ctx context.Context, cfg *pgx.ConnConfig, scripts ...migrations.Script) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.Background())
	for _, sc := range scripts {
		if _, err := conn.Exec(ctx, sc.SQL); err != nil {
			return fault.Env(fmt.Errorf("applying migrations/%s: %s", sc.Name, serverMessage(err)))
		}
	}
	return nil
}

// Drop drops one database that this server created.
func (s *Server) drop(ctx context.Context, name string) error {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("connecting to drop %s: %s", name, serverMessage(err))
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping %s: %s", name, serverMessage(err))
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

// Close drops every database this server created and the roles created since it started (server
// mode), or stops the embedded cluster and removes its directory. It is safe to call more than once and does not depend on any context
// that may already be cancelled.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	names := append([]string(nil), s.created...)
	s.mu.Unlock()
	if s.cl != nil {
		// The whole cluster goes; no need to drop its databases one by one.
		return s.cl.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for i := len(names) - 1; i >= 0; i-- {
		if err := s.drop(ctx, names[i]); err != nil {
			errs = append(errs, err)
		}
	}
	s.dropNewRoles(ctx)
	return errors.Join(errs...)
}

// userConfig is the connection configuration for user SQL in database db.
func (s *Server) userConfig(db string) *pgx.ConnConfig {
	cfg := s.admin.Copy()
	cfg.Database = db
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if s.setRole {
		cfg.RuntimeParams["role"] = s.installRole
	} else {
		cfg.User = s.installRole
	}
	cfg.RuntimeParams["search_path"] = `"$user", public, extensions`
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(s.opts.StatementTimeout.Milliseconds())
	cfg.RuntimeParams["lock_timeout"] = fmt.Sprint(s.opts.LockTimeout.Milliseconds())
	cfg.RuntimeParams["application_name"] = "ledgercheck"
	cfg.RuntimeParams["client_min_messages"] = "warning"
	return cfg
}

// chooseInstallRole makes user SQL on a --dsn server run as postgres, as on Supabase and in the
// embedded cluster, when the DSN's role may assume it (a superuser, or a member of postgres):
// objects then have the same owner in every mode, which catalog comparisons and the allowlist's
// pinned values depend on. Otherwise user SQL runs as the DSN's role itself.
func (s *Server) chooseInstallRole(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fault.Env(fmt.Errorf("connecting: %s", serverMessage(err)))
	}
	defer conn.Close(context.Background())
	var can bool
	if err := conn.QueryRow(ctx, `SELECT current_user <> 'postgres' AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'postgres') AND pg_has_role(current_user, 'postgres', 'MEMBER')`).Scan(&can); err != nil {
		return fault.Env(fmt.Errorf("--dsn server: checking the postgres role: %s", serverMessage(err)))
	}
	if can {
		s.installRole, s.setRole = "postgres", true
	}
	return nil
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
	if r := cfg.RuntimeParams["role"]; r != "" {
		q.Set("options", "-crole="+r) // no space: libpq does not decode "+" in URIs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func randomSuffix() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

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
