// Package observe is the access observation: after a migration is installed (its fixture or
// generated rows loaded), it acts as the Data API does, as anon and as signed-in users A and B,
// on everything the file made reachable, and records what each could do: which rows of which
// relation it read (its own, another user's), what it could insert, update, delete or give to
// another user, what each function it may call returned and read, and what else each request
// changed (rows of other tables, requests queued for the network, jobs). The installed audit's
// verdict on access is what was observed ([Findings]); the catalog's reading of policies and
// grants (internal/audit) explains it.
//
// It observes as PostgREST does, never from a privileged session: it logs in as the observer
// (scratch.Database.ConnectObserver: NOINHERIT, a member of anon, authenticated and
// service_role, no privilege of its own), and each request is a savepoint of one transaction
// that sets the role and the request settings PostgREST sets (request.jwt.claims with role,
// sub, user_metadata and app_metadata; request.headers; request.method; request.path), runs
// the action under the role's statement timeout, reads what the transaction's statistics say
// it changed, and rolls back. The privileged sessions it uses (the superuser's, to add the
// users A, B and C to auth.users; the reader's, to count the rows present) run only
// pg_catalog-qualified SQL and evaluate nothing the migration defined.
//
// A phase in the sense of docs/architecture.md: [Run] takes a database the gate prepared (the
// file installed, rows loaded) and returns an [Observation]; [Findings] turns the observations
// of every privilege model into findings.
package observe

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Database is what an observation needs of a scratch database: its sessions.
type Database interface {
	ConnectObserver(ctx context.Context) (*pgx.Conn, error)
	ConnectAdmin(ctx context.Context) (*pgx.Conn, error)
	ConnectReader(ctx context.Context) (*pgx.Conn, error)
	Connect(ctx context.Context) (*pgx.Conn, error)
}

// Input is what one observation needs besides the database.
type Input struct {
	// Model names the privilege model the database was installed under (lint's name).
	Model string
	// Scope is what the file created or changed, in the exposed schemas.
	Scope Scope
	// Snapshot is the catalog after the install: the types and tables rows are generated from.
	Snapshot *introspect.Snapshot
	// Dim is the vector dimension of the database (a vector argument's).
	Dim int
	// Admin, when not nil, is a superuser session of the database to use (else one is opened).
	Admin *pgx.Conn
	// Rows, when not nil, loads the rows the database is observed over (the fixture); it is
	// called only when some persona has a request to make.
	Rows func(ctx context.Context) error
	// Budget bounds the actions' time (0: DefaultBudget); actions not run by then are noted.
	Budget time.Duration
}

// DefaultBudget is how long one observation's requests may take in all.
const DefaultBudget = 60 * time.Second

// Observation is what the personas could do in one install.
type Observation struct {
	Model   string
	Surface *Surface
	// Cells are the actions tried and what each did.
	Cells []report.Access
	// Present are the rows of each table of the surface, by its identity.
	Present map[string]int
	// Notes say what could not be observed, and why.
	Notes []string
	// Denied is how many requests were not made because PostgreSQL refuses them whatever they
	// are (row level security on and no policy for the role, a write to a view that takes none).
	Denied int
	// Unmade is how many requests the observation's bounds left unmade or unread: past a
	// round's limit, or once its time had run out (see Notes).
	Unmade int
	// Scope is what was observed.
	Scope Scope

	done    []*done
	present rowCounts
}

// observer is one observation under way.
type observer struct {
	in      Input
	db      Database
	s       *Surface
	c       Conns
	obs     *pgx.Conn
	plan    *fill.Plan
	values  *fill.Values
	present rowCounts
	refs    map[string][]map[string]string // sampled rows, by table as fill names it
	members map[string][]map[string]string // membership rows owned by A and B, by table ident
	rowN    int
	notes   []string
	done    []*done           // the actions run, with their results
	plans   map[string]string // the plans of reads, by relation (readPlans)
	opened  []*pgx.Conn
	denied  int  // the requests of the first round not made: PostgreSQL's default deny
	unmade  int  // the requests the bounds left unmade or unread
	wide    bool // the requests may reach beyond the surface: every table gets rows (reachesBeyond)
	stopped bool // the observation's time ran out: no more requests
}

// Run observes the database db is connected to, as in says. The surface is read on the
// superuser's session (a catalog read, pg_catalog-qualified); when no persona has any request
// to make, nothing else is opened, no row is added and no request is made.
func Run(ctx context.Context, db Database, in Input) (*Observation, error) {
	out := &Observation{Model: in.Model, Present: map[string]int{}, Scope: in.Scope}
	if in.Scope.Empty() {
		return out, nil
	}
	o := &observer{in: in, db: db, present: rowCounts{}, refs: map[string][]map[string]string{}, members: map[string][]map[string]string{}}
	defer o.close(ctx)
	if err := o.open(ctx, &o.c.Admin, in.Admin, db.ConnectAdmin); err != nil {
		return nil, err
	}
	if ok, err := reachable(ctx, o.c.Admin, in.Scope); err != nil || !ok {
		return out, err
	}
	s, err := readSurface(ctx, o.c.Admin, in.Scope)
	if err != nil {
		return nil, fmt.Errorf("observing: %w", err)
	}
	o.s, out.Surface = s, s
	o.planRows()
	first := o.firstRound()
	if len(first) == 0 {
		out.Denied = o.denied
		return out, nil
	}
	o.wide = reachesBeyond(first)
	if in.Rows != nil {
		if err := in.Rows(ctx); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct {
		conn    **pgx.Conn
		connect func(context.Context) (*pgx.Conn, error)
	}{{&o.obs, db.ConnectObserver}, {&o.c.Reader, db.ConnectReader}} {
		if err := o.open(ctx, c.conn, nil, c.connect); err != nil {
			return nil, err
		}
	}
	if err := o.prepare(ctx); err != nil {
		return nil, fmt.Errorf("observing: %w", err)
	}
	if err := o.act(ctx); err != nil {
		return nil, fmt.Errorf("observing: %w", err)
	}
	out.Cells = o.cells()
	for ident, p := range o.present {
		out.Present[ident] = p.all
	}
	out.Notes, out.done, out.present, out.Denied, out.Unmade = o.notes, o.done, o.present, o.denied, o.unmade
	return out, nil
}

// open sets *conn to given, or to a session connect opens (which close closes).
func (o *observer) open(ctx context.Context, conn **pgx.Conn, given *pgx.Conn, connect func(context.Context) (*pgx.Conn, error)) error {
	if *conn != nil {
		return nil // opened already
	}
	if given != nil {
		*conn = given
		return nil
	}
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	o.opened = append(o.opened, c)
	*conn = c
	return nil
}

// close closes the sessions the observation opened.
func (o *observer) close(ctx context.Context) {
	for _, c := range o.opened {
		c.Close(context.WithoutCancel(ctx))
	}
}

// nounRequests is "1 request", "3 requests".
func nounRequests(n int) string { return NounRequests(n) }

// NounRequests is "1 request", "3 requests".
func NounRequests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

// prepare adds the users, generates the rows that make access visible, and reads what the
// personas' actions need of the rows present.
func (o *observer) prepare(ctx context.Context) error {
	if err := addUsers(ctx, o.c.Admin, o.s); err != nil {
		return err
	}
	if err := o.count(ctx); err != nil {
		return err
	}
	if err := o.fillRows(ctx, true); err != nil {
		return err
	}
	if err := o.count(ctx); err != nil {
		return err
	}
	// A rule or trigger of the file's may have emptied a table as rows went in: it gets rows
	// again, so that what a request does to it can show.
	if o.wide && o.s.rewrites() {
		if err := o.fillRows(ctx, false); err != nil {
			return err
		}
		if err := o.count(ctx); err != nil {
			return err
		}
	}
	var bases []string
	for _, r := range o.s.Relations {
		bases = append(bases, r.Bases...)
	}
	if err := o.countTables(ctx, bases); err != nil {
		return err
	}
	if err := o.samples(ctx); err != nil {
		return err
	}
	if err := o.membershipRows(ctx); err != nil {
		return err
	}
	return nil
}

// reachesBeyond reports whether some of the actions may reach tables beyond the relations they
// act on: a call (a function reads and writes what it likes), or a write to a relation with a
// trigger or a rule. Then every table outside Supabase's schemas gets rows, so that what they
// do shows; otherwise the surface's relations and what they read do.
func reachesBeyond(acts []*action) bool {
	for _, a := range acts {
		if a.fn != nil {
			return true
		}
		if a.rel != nil && a.kind != ActSelect && len(a.rel.Triggers)+len(a.rel.Rules) > 0 {
			return true
		}
	}
	return false
}

// rewrites reports whether a relation of the surface has a trigger or a rule.
func (s *Surface) rewrites() bool {
	for _, r := range s.Relations {
		if len(r.Triggers)+len(r.Rules) > 0 {
			return true
		}
	}
	return false
}

// planRows plans the rows the personas insert (one per table of the surface) and the values
// of functions' arguments.
func (o *observer) planRows() {
	var names []string
	for _, r := range o.s.tables() {
		names = append(names, displayOf(r))
	}
	if o.in.Snapshot != nil {
		o.plan = fill.New(nil, o.in.Snapshot, fill.Options{Seed: seed, Rows: 1, Tables: names, Shared: true})
		o.values = fill.NewValues(o.in.Snapshot, seed)
		return
	}
	o.values = fill.NewValues(&introspect.Snapshot{}, seed)
}

// literal is a generated literal of type typ for a function's argument i (a vector at the
// database's dimension).
func (o *observer) literal(typ, schema string, i int) (string, bool) {
	if (typ == "extensions.vector" || typ == "vector") && o.in.Dim > 0 {
		typ = typ + "(" + strconv.Itoa(o.in.Dim) + ")"
	}
	return o.values.Literal(typ, schema, i)
}

// searchPath is the request's search_path, as PostgREST sets it: the exposed schemas, then
// extensions (db-extra-search-path).
func (o *observer) searchPath() string {
	var parts []string
	for _, s := range append(append([]string{}, o.in.Scope.Exposed...), "extensions") {
		parts = append(parts, qident(s))
	}
	return strings.Join(parts, ", ")
}
