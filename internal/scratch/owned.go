package scratch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/privileged"
)

// What a --dsn run made, and nothing else (issue 22).
//
// User SQL can make a role through a role it created (SET ROLE to it, then CREATE ROLE), and cut
// the tie by dropping that maker. A run reads the server's roles, databases and tablespaces under
// the turn lock before any of its SQL runs ([sharedState]); when it ends, it drops the roles
// that appeared meanwhile and that one of its roles created, as it saw them after every
// statement of its SQL (runroles.go): another client's role, which appeared meanwhile too, is
// never the run's. Whatever existed before is never dropped: a database or tablespace that user
// SQL got hold of (REASSIGN OWNED BY service_role TO CURRENT_USER on a server where service_role
// owns another tenant's database) is given back to its owner, with its flags, before the run's
// roles are dropped.
//
// Every statement here runs as the --dsn superuser, so it follows the rule for privileged
// sessions (docs/architecture.md): catalogs, functions and operators qualified with pg_catalog,
// no value of a user-defined type cast or rendered, and the sessions this file opens itself start
// with search_path = pg_catalog.

// System catalog oids, for pg_shdepend's classid and refclassid.
const (
	pgAuthidOid     = 1260
	pgDatabaseOid   = 1262
	pgTablespaceOid = 1213
)

// dbState is what a run restores of a database that existed before it.
type dbState struct {
	name                 string
	owner                uint32
	template, allowConns bool
	connLimit            int32
}

// sharedState is what a run saw of the server's shared catalogs before its user SQL ran.
type sharedState struct {
	roles map[uint32]bool
	dbs   map[uint32]dbState
	spcs  map[uint32]uint32 // tablespace -> owner
}

// readSharedState reads the server's roles, databases and tablespaces on conn, a superuser
// session.
func readSharedState(ctx context.Context, conn *pgx.Conn) (*sharedState, error) {
	st := &sharedState{roles: map[uint32]bool{}, dbs: map[uint32]dbState{}, spcs: map[uint32]uint32{}}
	rows, err := conn.Query(ctx, `SELECT oid FROM pg_catalog.pg_authid`)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing roles"))
	}
	roles, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing roles"))
	}
	for _, r := range roles {
		st.roles[r] = true
	}
	rows, err = conn.Query(ctx, `SELECT oid, datname::pg_catalog.text, datdba, datistemplate, datallowconn, datconnlimit FROM pg_catalog.pg_database`)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing databases"))
	}
	var oid uint32
	var d dbState
	if _, err := pgx.ForEachRow(rows, []any{&oid, &d.name, &d.owner, &d.template, &d.allowConns, &d.connLimit}, func() error {
		st.dbs[oid] = d
		return nil
	}); err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing databases"))
	}
	rows, err = conn.Query(ctx, `SELECT oid, spcowner FROM pg_catalog.pg_tablespace`)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing tablespaces"))
	}
	var owner uint32
	if _, err := pgx.ForEachRow(rows, []any{&oid, &owner}, func() error {
		st.spcs[oid] = owner
		return nil
	}); err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing tablespaces"))
	}
	return st, nil
}

// checkInherited refuses, on conn (a superuser session, before the install role exists), a
// server where the install role would get, through the Supabase API roles it joins, the
// privileges of a role that owns a database or tablespace, is a superuser, or reaches the
// server's programs or files. On such a server, where the API roles were there before the run
// (another tenant's), user SQL could drop or take that tenant's database outright (DROP
// DATABASE needs only its owner's privileges) or run programs on the host, and nothing the run
// did afterwards could undo it; so the run does not start (exit 3).
func checkInherited(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `WITH RECURSIVE reach(oid) AS (
			SELECT a.oid FROM pg_catalog.pg_authid a WHERE a.rolname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])
			UNION
			SELECT m.roleid FROM pg_catalog.pg_auth_members m JOIN reach ON m.member OPERATOR(pg_catalog.=) reach.oid
		)
		SELECT 'database', d.datname::pg_catalog.text, a.rolname::pg_catalog.text
		  FROM pg_catalog.pg_database d JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) d.datdba
		 WHERE d.datdba OPERATOR(pg_catalog.=) ANY (SELECT oid FROM reach)
		UNION ALL
		SELECT 'tablespace', t.spcname::pg_catalog.text, a.rolname::pg_catalog.text
		  FROM pg_catalog.pg_tablespace t JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) t.spcowner
		 WHERE t.spcowner OPERATOR(pg_catalog.=) ANY (SELECT oid FROM reach)
		UNION ALL
		SELECT 'role', a.rolname::pg_catalog.text, ''
		  FROM pg_catalog.pg_authid a JOIN reach ON reach.oid OPERATOR(pg_catalog.=) a.oid
		 WHERE a.rolsuper OR a.rolname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[])
		ORDER BY 1, 2`, apiRoles, []string{"pg_execute_server_program", "pg_read_server_files", "pg_write_server_files", "pg_create_subscription"})
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: reading what the Supabase roles hold"))
	}
	var kind, name, owner string
	var held []string
	if _, err := pgx.ForEachRow(rows, []any{&kind, &name, &owner}, func() error {
		if kind == "role" {
			held = append(held, "role "+ident(name))
		} else {
			held = append(held, kind+" "+ident(name)+" (owned by "+ident(owner)+")")
		}
		return nil
	}); err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: reading what the Supabase roles hold"))
	}
	if len(held) == 0 {
		return nil
	}
	if len(held) > 3 {
		held = append(held[:3], fmt.Sprintf("and %d more", len(held)-3))
	}
	return fault.Env(fmt.Errorf("--dsn server: the migrations' role joins the Supabase roles (%s), and through them would hold %s: a migration could drop, take or run anything that holds; use a server with no databases, tablespaces or server roles held by those roles (a fresh CI service container), or the embedded cluster",
		strings.Join(apiRoles[:3], ", "), strings.Join(held, ", ")))
}

// roleRef is a role by oid and name.
type roleRef struct {
	oid  uint32
	name string
}

// newRoles returns the roles on the server that are not in before (PostgreSQL's own pg_* roles
// aside, which no one creates), in creation order (oid).
func newRoles(ctx context.Context, conn *pgx.Conn, before *sharedState) ([]roleRef, error) {
	rows, err := conn.Query(ctx, `SELECT oid, rolname::pg_catalog.text FROM pg_catalog.pg_authid ORDER BY oid`)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing roles"))
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (roleRef, error) {
		var x roleRef
		return x, r.Scan(&x.oid, &x.name)
	})
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing roles"))
	}
	return slices.DeleteFunc(all, func(r roleRef) bool { return before.roles[r.oid] || strings.HasPrefix(r.name, "pg_") }), nil
}

// dbRow is a database on the server now.
type dbRow struct {
	oid   uint32
	state dbState
}

// listDatabases returns the server's databases.
func listDatabases(ctx context.Context, conn *pgx.Conn) ([]dbRow, error) {
	rows, err := conn.Query(ctx, `SELECT oid, datname::pg_catalog.text, datdba, datistemplate, datallowconn, datconnlimit FROM pg_catalog.pg_database ORDER BY oid`)
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing databases"))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dbRow, error) {
		var x dbRow
		return x, r.Scan(&x.oid, &x.state.name, &x.state.owner, &x.state.template, &x.state.allowConns, &x.state.connLimit)
	})
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: listing databases"))
	}
	return out, nil
}

// roleName returns the name of role oid ("" when there is none).
func roleName(ctx context.Context, conn *pgx.Conn, oid uint32) string {
	var name string
	_ = conn.QueryRow(ctx, `SELECT rolname::pg_catalog.text FROM pg_catalog.pg_authid WHERE oid OPERATOR(pg_catalog.=) $1`, oid).Scan(&name)
	return name
}

// giveBack restores, on conn (a superuser session in the maintenance database), every database
// and tablespace that existed before the run (before) and that one of the run's roles (run) now
// owns, with the database's flags as they were, and revokes what the run's roles were granted on
// any object that existed before. Nothing of what existed before is dropped.
func giveBack(ctx context.Context, conn *pgx.Conn, before *sharedState, run map[uint32]bool, log io.Writer) error {
	dbs, err := listDatabases(ctx, conn)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range dbs {
		was, existed := before.dbs[d.oid]
		if !existed || !run[d.state.owner] {
			continue
		}
		owner := roleName(ctx, conn, was.owner)
		if owner == "" {
			errs = append(errs, fmt.Errorf("database %s existed before the run and is now owned by one of its roles, and its owner then is gone", ident(d.state.name)))
			continue
		}
		sql := fmt.Sprintf("ALTER DATABASE %[1]s OWNER TO %[2]s; ALTER DATABASE %[1]s IS_TEMPLATE %[3]s ALLOW_CONNECTIONS %[4]s CONNECTION LIMIT %[5]d",
			ident(d.state.name), ident(owner), strconv.FormatBool(was.template), strconv.FormatBool(was.allowConns), was.connLimit)
		if _, err := conn.Exec(ctx, sql); err != nil {
			errs = append(errs, serverErrorf(err, "giving database %s back to %s", ident(d.state.name), owner))
			continue
		}
		fmt.Fprintf(log, "scratch: user SQL took database %s, which existed before the run, from role %s (REASSIGN OWNED); it is %s's again\n", ident(d.state.name), owner, owner)
	}
	rows, err := conn.Query(ctx, `SELECT t.spcname::pg_catalog.text, t.oid, t.spcowner FROM pg_catalog.pg_tablespace t`)
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing tablespaces"))
	}
	type spc struct {
		name       string
		oid, owner uint32
	}
	spcs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (spc, error) {
		var x spc
		return x, r.Scan(&x.name, &x.oid, &x.owner)
	})
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing tablespaces"))
	}
	for _, t := range spcs {
		was, existed := before.spcs[t.oid]
		if !existed || !run[t.owner] {
			continue
		}
		owner := roleName(ctx, conn, was)
		if _, err := conn.Exec(ctx, "ALTER TABLESPACE "+ident(t.name)+" OWNER TO "+ident(owner)); owner == "" || err != nil {
			errs = append(errs, fmt.Errorf("giving tablespace %s back to its owner: %w", ident(t.name), err))
		}
	}
	// Privileges the run's roles hold on databases and tablespaces that stay (granted while user
	// SQL owned one) would keep them from being dropped.
	if err := revokeShared(ctx, conn, run); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fault.Env(errors.Join(errs...))
	}
	return nil
}

// revokeShared revokes every privilege the roles run hold on a database or tablespace.
func revokeShared(ctx context.Context, conn *pgx.Conn, run map[uint32]bool) error {
	oids := make([]uint32, 0, len(run))
	for r := range run {
		oids = append(oids, r)
	}
	rows, err := conn.Query(ctx, `SELECT s.classid OPERATOR(pg_catalog.=) $2,
			coalesce(d.datname::pg_catalog.text, t.spcname::pg_catalog.text), a.rolname::pg_catalog.text
		FROM pg_catalog.pg_shdepend s
		JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) s.refobjid
		LEFT JOIN pg_catalog.pg_database d ON s.classid OPERATOR(pg_catalog.=) $2 AND d.oid OPERATOR(pg_catalog.=) s.objid
		LEFT JOIN pg_catalog.pg_tablespace t ON s.classid OPERATOR(pg_catalog.=) $3 AND t.oid OPERATOR(pg_catalog.=) s.objid
		WHERE s.dbid OPERATOR(pg_catalog.=) 0 AND s.deptype OPERATOR(pg_catalog.=) 'a'
		  AND s.refclassid OPERATOR(pg_catalog.=) $4 AND s.refobjid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
		  AND s.classid OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3]::pg_catalog.oid[])`,
		oids, uint32(pgDatabaseOid), uint32(pgTablespaceOid), uint32(pgAuthidOid))
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing the run's privileges"))
	}
	var db bool
	var obj, role string
	var stmts []string
	if _, err := pgx.ForEachRow(rows, []any{&db, &obj, &role}, func() error {
		if db {
			stmts = append(stmts, "REVOKE ALL ON DATABASE "+ident(obj)+" FROM "+ident(role)+" CASCADE")
		} else {
			stmts = append(stmts, "REVOKE ALL ON TABLESPACE "+ident(obj)+" FROM "+ident(role)+" CASCADE")
		}
		return nil
	}); err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing the run's privileges"))
	}
	for _, sql := range stmts {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fault.Env(serverErrorf(err, "%s", sql))
		}
	}
	return nil
}

// adminSession returns a copy of admin, the --dsn superuser's configuration, for database db: a
// privileged session (privileged.Config), which also overrides the other settings a database's
// owner could have given it (ALTER DATABASE ... SET) that would stop it from rolling back.
func adminSession(admin *pgx.ConnConfig, db string) *pgx.ConnConfig {
	cfg := admin.Copy()
	cfg.Database = db
	rp := map[string]string{}
	for k, v := range cfg.RuntimeParams {
		rp[k] = v
	}
	cfg.RuntimeParams = rp
	privileged.Config(cfg)
	rp["default_transaction_read_only"] = "off"
	rp["statement_timeout"] = "60000"
	rp["lock_timeout"] = "10000"
	rp["idle_in_transaction_session_timeout"] = "0"
	rp["application_name"] = "ledgercheck (cleanup)"
	return cfg
}

// releaseDatabases makes the databases names droppable whatever user SQL did to them, on conn (a
// superuser session in the maintenance database; admin connects as the same role): it clears the
// settings their owner gave them, undoes IS_TEMPLATE, ALLOW_CONNECTIONS false and CONNECTION
// LIMIT, rolls back the transactions prepared in them and ends their sessions. Names that are
// not databases are skipped.
func releaseDatabases(ctx context.Context, conn *pgx.Conn, admin *pgx.ConnConfig, names []string) error {
	if len(names) == 0 {
		return nil
	}
	rows, err := conn.Query(ctx, `SELECT datname::pg_catalog.text FROM pg_catalog.pg_database
		WHERE datname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.name[])
		  AND (datistemplate OR NOT datallowconn OR datconnlimit OPERATOR(pg_catalog.<>) -1
		       OR EXISTS (SELECT 1 FROM pg_catalog.pg_db_role_setting s WHERE s.setdatabase OPERATOR(pg_catalog.=) pg_database.oid))`, names)
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: reading the run's databases"))
	}
	changed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: reading the run's databases"))
	}
	var errs []error
	for _, d := range changed {
		sql := fmt.Sprintf("ALTER DATABASE %[1]s IS_TEMPLATE false ALLOW_CONNECTIONS true CONNECTION LIMIT -1; ALTER DATABASE %[1]s RESET ALL", ident(d))
		if _, err := conn.Exec(ctx, sql); err != nil {
			errs = append(errs, serverErrorf(err, "undoing the settings of database %s", ident(d)))
		}
	}
	rows, err = conn.Query(ctx, `SELECT database::pg_catalog.text, gid FROM pg_catalog.pg_prepared_xacts
		WHERE database OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.name[]) ORDER BY 1, 2`, names)
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing prepared transactions"))
	}
	xacts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (prepared, error) {
		var x prepared
		return x, r.Scan(&x.db, &x.gid)
	})
	if err != nil {
		return fault.Env(serverErrorf(err, "--dsn server: listing prepared transactions"))
	}
	for i := 0; i < len(xacts); {
		j := i
		for j < len(xacts) && xacts[j].db == xacts[i].db {
			j++
		}
		if err := rollbackPrepared(ctx, admin, xacts[i].db, xacts[i:j]); err != nil {
			errs = append(errs, err)
		}
		i = j
	}
	if _, err := conn.Exec(ctx, `SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity
		WHERE datname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.name[]) AND pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()`, names); err != nil {
		errs = append(errs, serverErrorf(err, "ending the sessions of the run's databases"))
	}
	if len(errs) > 0 {
		return fault.Env(errors.Join(errs...))
	}
	return nil
}

// prepared is a prepared transaction: its database and its gid.
type prepared struct{ db, gid string }

// rollbackPrepared rolls back the prepared transactions xacts of database db: only a session in
// that database can.
func rollbackPrepared(ctx context.Context, admin *pgx.ConnConfig, db string, xacts []prepared) error {
	conn, err := pgx.ConnectConfig(ctx, adminSession(admin, db))
	if err != nil {
		return fault.Env(serverErrorf(err, "connecting to %s to roll back its prepared transactions", ident(db)))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, x := range xacts {
		gid := x.gid
		if _, err := conn.Exec(ctx, "ROLLBACK PREPARED "+quoteLiteral(gid)); err != nil {
			return fault.Env(serverErrorf(err, "rolling back the transaction %s prepared in %s", quoteLiteral(gid), ident(db)))
		}
	}
	return nil
}

// dropDatabases releases (see [releaseDatabases]) and drops the databases names, returning those
// it dropped.
func dropDatabases(ctx context.Context, conn *pgx.Conn, admin *pgx.ConnConfig, names []string) ([]string, error) {
	var errs []error
	if err := releaseDatabases(ctx, conn, admin, names); err != nil {
		errs = append(errs, err)
	}
	var dropped []string
	for _, d := range names {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(d)+" WITH (FORCE)"); err != nil {
			errs = append(errs, serverErrorf(err, "dropping %s", ident(d)))
			continue
		}
		dropped = append(dropped, d)
	}
	if len(errs) > 0 {
		return dropped, fault.Env(errors.Join(errs...))
	}
	return dropped, nil
}

// dropRunRoles ends the sessions of the roles roles and drops them, all in one statement when
// it can (memberships among them do not matter then), else one by one. It returns those dropped;
// a role that something outside the run still depends on stays, and is named in the error.
func dropRunRoles(ctx context.Context, conn *pgx.Conn, roles []roleRef) ([]string, error) {
	if len(roles) == 0 {
		return nil, nil
	}
	oids := make([]uint32, len(roles))
	idents := make([]string, len(roles))
	for i, r := range roles {
		oids[i], idents[i] = r.oid, ident(r.name)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity
		WHERE usesysid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[]) AND pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()`, oids); err != nil {
		return nil, fault.Env(serverErrorf(err, "ending the sessions of the run's roles"))
	}
	var dropped []string
	if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+strings.Join(idents, ", ")); err == nil {
		for _, r := range roles {
			dropped = append(dropped, "role "+r.name)
		}
		return dropped, nil
	}
	var errs []error
	for _, r := range roles {
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+ident(r.name)); err != nil {
			errs = append(errs, serverErrorf(err, "role %s stays on the server", ident(r.name)))
			continue
		}
		dropped = append(dropped, "role "+r.name)
	}
	if len(errs) > 0 {
		return dropped, fault.Env(errors.Join(errs...))
	}
	return dropped, nil
}

// closeServerRun drops, at the end of a --dsn run, what it made: the databases it created, then
// every role that appeared on the server during the run and that one of the run's roles created
// (runroles.go), except one another client tied to something of theirs (othersRoles), after
// giving back what existed before and one of those roles now owns. conn is the
// run's anchor session, which holds the turn lock.
func (s *Server) closeServerRun(ctx context.Context, conn *pgx.Conn, created []string) error {
	var errs []error
	roles, err := newRoles(ctx, conn, s.before)
	if err != nil {
		return err
	}
	dbs, err := listDatabases(ctx, conn)
	if err != nil {
		return err
	}
	// Only the databases the run created (its roles cannot create or rename any: no CREATEDB,
	// and neither 16 nor the guard lets them give it to a role they make); never one that
	// existed before, whatever it is called now.
	names := slices.DeleteFunc(slices.Clone(created), func(n string) bool {
		for oid, d := range s.before.dbs {
			if d.name == n && slices.ContainsFunc(dbs, func(r dbRow) bool { return r.oid == oid }) {
				return true
			}
		}
		return false
	})
	if _, err := dropDatabases(ctx, conn, s.admin, names); err != nil {
		errs = append(errs, err)
	}
	s.mu.Lock()
	s.created = slices.DeleteFunc(s.created, func(n string) bool { return slices.Contains(names, n) })
	s.mu.Unlock()
	made, err := s.closeRunRoles(ctx, conn)
	if err != nil {
		return errors.Join(append(errs, fault.Env(serverErrorf(err, "--dsn server: reading the roles the run made")))...)
	}
	roles = slices.DeleteFunc(roles, func(r roleRef) bool {
		if _, ok := made[r.oid]; ok {
			return false
		}
		fmt.Fprintf(s.opts.Log, "scratch: role %s appeared on the server during the run, but no role of the run created it (another client's, or one the migration cut loose within one statement): left alone\n", ident(r.name))
		return true
	})
	own := map[uint32]bool{}
	logins := s.loginNames()
	for _, r := range roles {
		own[r.oid] = r.name == s.installRole || r.name == s.readerRole || r.name == s.observerRole || slices.Contains(s.apiCreated, r.name) || slices.Contains(logins, r.name)
	}
	others, err := othersRoles(ctx, conn, roles, own)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, r := range others {
		fmt.Fprintf(s.opts.Log, "scratch: role %s appeared on the server during the run but is another client's (a superuser tied it to a role of theirs, or it has objects outside the run): left alone\n", ident(r.name))
	}
	roles = slices.DeleteFunc(roles, func(r roleRef) bool { return slices.Contains(others, r) })
	run := map[uint32]bool{}
	for _, r := range roles {
		run[r.oid] = true
	}
	if err := giveBack(ctx, conn, s.before, run, s.opts.Log); err != nil {
		errs = append(errs, err)
	}
	if _, err := dropRunRoles(ctx, conn, roles); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// othersRoles returns the roles among appeared (roles that appeared on the server while the run
// held the turn; those in own are the run's by construction) that carry a mark no SQL of the run
// can make: a membership granted by a superuser other than the ADMIN OPTION a role that appeared
// holds on one it created (which PostgreSQL 16, and the guard on 15, record as granted by the
// bootstrap superuser; the run's roles never act as a superuser), or an object or privilege in a
// database other than the run's (called after the run's databases are dropped; the run's
// sessions reach no other database). A role another client creates and leaves without either
// cannot be told from one the run's SQL made and detached from every tie, and goes with the run.
func othersRoles(ctx context.Context, conn *pgx.Conn, appeared []roleRef, own map[uint32]bool) ([]roleRef, error) {
	all := make([]uint32, 0, len(appeared))
	var check []uint32
	for _, r := range appeared {
		all = append(all, r.oid)
		if !own[r.oid] {
			check = append(check, r.oid)
		}
	}
	if len(check) == 0 {
		return nil, nil
	}
	rows, err := conn.Query(ctx, `SELECT a.oid FROM pg_catalog.pg_authid a
		WHERE a.oid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
		  AND (EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_authid g ON g.oid OPERATOR(pg_catalog.=) m.grantor
		               WHERE g.rolsuper AND a.oid OPERATOR(pg_catalog.=) ANY (ARRAY[m.roleid, m.member])
		                 AND NOT (m.admin_option AND m.roleid OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.oid[])
		                          AND m.member OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.oid[])))
		    OR EXISTS (SELECT 1 FROM pg_catalog.pg_shdepend d
		               WHERE d.refclassid OPERATOR(pg_catalog.=) $3::pg_catalog.oid AND d.refobjid OPERATOR(pg_catalog.=) a.oid
		                 AND d.dbid OPERATOR(pg_catalog.<>) 0))`, check, all, uint32(pgAuthidOid))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: reading the ties of the roles that appeared during the run"))
	}
	oids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "--dsn server: reading the ties of the roles that appeared during the run"))
	}
	return slices.DeleteFunc(slices.Clone(appeared), func(r roleRef) bool { return !slices.Contains(oids, r.oid) }), nil
}

// deadRun is what a run that is gone left on the server, as [sweepDeadRuns] finds it.
type deadRun struct {
	id      string
	install roleRef
	roles   []roleRef // install, and the roles made after it that are tied to the run's
	dbs     []string  // its databases
	taken   []string  // databases that existed before it and one of its roles owns
}

// findDeadRun finds what the run id, whose install role is install, left: the roles made after
// it (a larger oid) that one of the run's roles created (its ADMIN OPTION on them, granted by the
// bootstrap superuser: see runroles.go), transitively (PostgreSQL's pg_* and the Supabase API roles aside: those a run created are
// marked); the databases named after the run, or made after the install role and owned by one of
// the run's roles; and the databases that existed before the run and that one of its roles owns
// (REASSIGN OWNED), which are never dropped.
func findDeadRun(ctx context.Context, conn *pgx.Conn, id string, install roleRef) (*deadRun, error) {
	rows, err := conn.Query(ctx, `WITH RECURSIVE run(oid) AS (
			SELECT $1::pg_catalog.oid
			UNION
			SELECT a.oid FROM pg_catalog.pg_authid a, pg_catalog.pg_auth_members m, run
			WHERE a.oid::pg_catalog.int8 OPERATOR(pg_catalog.>) $3::pg_catalog.int8
			  AND a.rolname::pg_catalog.text OPERATOR(pg_catalog.!~) '^pg_'
			  AND a.rolname::pg_catalog.text OPERATOR(pg_catalog.<>) ALL ($2::pg_catalog.text[])
			  AND m.roleid OPERATOR(pg_catalog.=) a.oid AND m.member OPERATOR(pg_catalog.=) run.oid
			  AND m.admin_option AND m.grantor OPERATOR(pg_catalog.=) $4::pg_catalog.oid
		)
		SELECT a.oid, a.rolname::pg_catalog.text FROM run JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) run.oid ORDER BY a.oid`,
		install.oid, apiRoles, int64(install.oid), uint32(bootstrapSuperuser))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing the roles of run %s", id))
	}
	roles, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (roleRef, error) {
		var x roleRef
		return x, r.Scan(&x.oid, &x.name)
	})
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing the roles of run %s", id))
	}
	d := &deadRun{id: id, install: install, roles: roles}
	dbs, err := listDatabases(ctx, conn)
	if err != nil {
		return nil, err
	}
	prefix := NamePrefix + id + "_"
	for _, db := range dbs {
		owned := slices.ContainsFunc(roles, func(r roleRef) bool { return r.oid == db.state.owner })
		switch {
		case strings.HasPrefix(db.state.name, prefix) && db.oid > install.oid:
			d.dbs = append(d.dbs, db.state.name)
		case owned && db.oid > install.oid:
			d.dbs = append(d.dbs, db.state.name)
		case owned:
			d.taken = append(d.taken, db.state.name)
		}
	}
	return d, nil
}

// sweepDeadRuns drops the leftovers of every run other than self whose lock no session holds
// and that started at least olderThan ago. A run is known by its install role, whose mark was
// set in the transaction that created it; see [findDeadRun] for what else is its. It drops
// nothing that existed before a run: a database a dead run's role took over is named in the
// error, with what to run.
func sweepDeadRuns(ctx context.Context, conn *pgx.Conn, olderThan time.Duration, self string) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT objid::pg_catalog.int4 FROM pg_catalog.pg_locks WHERE locktype OPERATOR(pg_catalog.=) 'advisory'
		AND classid OPERATOR(pg_catalog.=) $1::pg_catalog.oid AND objsubid OPERATOR(pg_catalog.=) 2 AND granted`, int64(lockClass))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing the runs in progress"))
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing the runs in progress"))
	}
	type roleRow struct {
		oid           uint32
		name, comment string
	}
	rows, err = conn.Query(ctx, `SELECT r.oid, r.rolname::pg_catalog.text, coalesce(d.description, '')
		FROM pg_catalog.pg_authid r LEFT JOIN pg_catalog.pg_shdescription d
		  ON d.objoid OPERATOR(pg_catalog.=) r.oid AND d.classoid OPERATOR(pg_catalog.=) $2::pg_catalog.oid
		WHERE pg_catalog.starts_with(r.rolname::pg_catalog.text, 'ledgercheck_') OR r.rolname::pg_catalog.text OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[])
		ORDER BY 2`, apiRoles, uint32(pgAuthidOid))
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing roles"))
	}
	roles, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (roleRow, error) {
		var x roleRow
		return x, r.Scan(&x.oid, &x.name, &x.comment)
	})
	if err != nil {
		return nil, fault.Env(serverErrorf(err, "listing roles"))
	}
	dead := map[string]roleRef{} // run id -> install role
	api := map[string][]roleRef{}
	for _, r := range roles {
		id, at, marked := markedRun(r.comment)
		if !marked || id == self || slices.Contains(keys, runKey(id)) || time.Since(at) < olderThan {
			continue
		}
		if m := runRoleName.FindStringSubmatch(r.name); m != nil && m[1] == id {
			dead[id] = roleRef{r.oid, r.name}
		} else if slices.Contains(apiRoles, r.name) || r.name == readerName(id) || r.name == observerName(id) || isLoginName(id, r.name) {
			api[id] = append(api[id], roleRef{r.oid, r.name})
		}
	}
	ids := make([]string, 0, len(dead))
	for id := range dead {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var dropped []string
	var errs []error
	admin := conn.Config()
	for _, id := range ids {
		// A killed run's CREATE DATABASE can still be finishing on the server after its lock is
		// gone: a database that appears meanwhile keeps the run's roles from being dropped, and
		// is found by a second look.
		for attempt := 0; ; attempt++ {
			names, again, err := sweepRun(ctx, conn, admin, id, dead[id], api[id])
			dropped = append(dropped, names...)
			if err != nil && again && attempt < 10 {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			if err != nil {
				errs = append(errs, err)
			}
			break
		}
	}
	if len(errs) > 0 {
		return dropped, fault.Env(errors.Join(errs...))
	}
	return dropped, nil
}

// sweepRun drops what the dead run id (install role install; api: the Supabase API roles and
// reader it created) left, and returns what it dropped; again says that only dropping its roles
// failed, which a second look may fix.
func sweepRun(ctx context.Context, conn *pgx.Conn, admin *pgx.ConnConfig, id string, install roleRef, api []roleRef) (dropped []string, again bool, err error) {
	d, err := findDeadRun(ctx, conn, id, install)
	if err != nil {
		return nil, false, err
	}
	dropped, err = dropDatabases(ctx, conn, admin, d.dbs)
	if err != nil {
		return dropped, false, err
	}
	if len(d.taken) > 0 {
		return dropped, false, fmt.Errorf("run %s's user SQL took database %s, which existed before it (REASSIGN OWNED); give it back to its owner, `ALTER DATABASE %s OWNER TO <owner>`, then run `ledgercheck cleanup --dsn` again", id, strings.Join(d.taken, ", "), ident(d.taken[0]))
	}
	run := map[uint32]bool{}
	for _, r := range d.roles {
		run[r.oid] = true
	}
	if err := revokeShared(ctx, conn, run); err != nil {
		return dropped, false, err
	}
	gone, err := dropRunRoles(ctx, conn, slices.Concat(d.roles[1:], d.roles[:1], api))
	return append(dropped, gone...), err != nil, err
}
