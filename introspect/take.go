package introspect

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/privileged"
)

// Options select what a snapshot includes.
type Options struct {
	// IncludeEnvironment includes the [EnvironmentSchemas] (auth, extensions, storage, ...).
	IncludeEnvironment bool
	// IncludeExtensionObjects includes objects that belong to an extension (pg_depend deptype
	// 'e'), such as pgvector's functions and operators' support functions.
	IncludeExtensionObjects bool
	// Schemas, when not empty, limits the snapshot to these schemas (extensions, triggers,
	// policies, rules and publications aside; a cast is kept when its types or function are in
	// one, an event trigger when its function is).
	Schemas []string
	// SkipRoles leaves roles out. Roles are cluster-wide: when two migrations are installed
	// concurrently into databases of one cluster, each footprint can see the other's CREATE
	// ROLE and GRANT role TO role.
	SkipRoles bool
	// InstallRole and AdminRole name, on the server, the role user SQL ran as and the superuser
	// that set up the environment; snapshots show them as [DefaultInstallRole] and
	// [DefaultAdminRole]. Empty means those defaults (Supabase's own names, which the embedded
	// cluster uses).
	InstallRole, AdminRole string
	// NormalizeBody gives each function body the normal form that a "body" fact compares (see
	// [BodyNormalizer]); nil compares bodies as written (BodyParse "text"), so that a change of
	// layout or comments is semantic. ledgercheck passes its parser's (internal/pgsql).
	NormalizeBody BodyNormalizer
	// NormalizeView gives each view definition the normal form that a view's "definition" fact
	// compares (see [ViewNormalizer]); nil compares definitions as the server prints them.
	// ledgercheck passes its parser's (internal/pgsql), which reads a definition printed by
	// PostgreSQL 15 and by 17 alike.
	NormalizeView ViewNormalizer
	// RowValues, when > 0, makes [TakeDigest] keep each row's values ([RowHash.Values]) of the
	// tables with at most that many rows, so that a report can show what changed; snapshots
	// ignore it.
	RowValues int
	// DigestBytes, when > 0, bounds the bytes of row hashes and values [TakeDigest] keeps in
	// memory (a table of millions of rows would otherwise cost hundreds of bytes each); a larger
	// digest is a [*DigestTooLargeError].
	DigestBytes int64
	// EnvironmentData makes [TakeDigest] read the tables and sequences of the
	// [EnvironmentSchemas] too, extension members included: the rows a migration can change
	// there (storage.buckets, auth.users, cron.job, vault.secrets, net.http_request_queue)
	// without changing the catalog. Snapshots ignore it.
	EnvironmentData bool
	// LargeObjects makes [TakeDigest] read the database's large objects ([Digest.LargeObjects]),
	// which needs SELECT on pg_catalog.pg_largeobject (a superuser, or pg_read_all_data).
	// Snapshots ignore it.
	LargeObjects bool
}

// ViewNormalizer returns a view definition (pg_get_viewdef) in a normal form that does not depend
// on the server version that printed it: PostgreSQL 16 stopped qualifying the columns of a view
// that reads one relation. A definition it cannot read is an error, and the definition is then
// compared as printed. It must be safe for concurrent use.
type ViewNormalizer func(definition string) (normalized string, err error)

// BodyNormalizer returns a function body in a normal form that ignores layout and comments, and
// how it got it (method: "sql", "plpgsql", "tokens" or "text"). language is the function's
// language, arguments pg_get_function_arguments, result pg_get_function_result and body prosrc.
// A body it cannot parse still gets a usable normal form; err then says why. It must be safe
// for concurrent use.
type BodyNormalizer func(language, arguments, result, body string) (normalized, method string, err error)

// The names snapshots give the install role and the superuser, as on Supabase.
const (
	DefaultInstallRole = "postgres"
	DefaultAdminRole   = "supabase_admin"
)

func (o Options) roles() (install, admin string) {
	install, admin = o.InstallRole, o.AdminRole
	if install == "" {
		install = DefaultInstallRole
	}
	if admin == "" {
		admin = DefaultAdminRole
	}
	return install, admin
}

// Beginner starts a transaction; *pgx.Conn, pgx.Tx and *pgxpool.Pool are Beginners.
type Beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// settings pin everything that affects how the server prints what the queries read: an empty
// search_path qualifies every name outside pg_catalog; the others fix the text of constants in
// defaults and expressions (dates, intervals, floats).
var settings = []string{
	`SET LOCAL search_path = ''`,
	`SET LOCAL DateStyle = 'ISO, MDY'`,
	`SET LOCAL IntervalStyle = 'postgres'`,
	`SET LOCAL TimeZone = 'UTC'`,
	`SET LOCAL extra_float_digits = 1`,
	`SET LOCAL bytea_output = 'hex'`,
}

// Take reads a snapshot of the database db is connected to, in one REPEATABLE READ READ ONLY
// transaction and one round trip. It changes nothing in the database.
func Take(ctx context.Context, db Beginner, opts Options) (*Snapshot, error) {
	queries, err := renderQueries(opts)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("starting the snapshot transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only; nothing to keep

	b := &pgx.Batch{}
	for _, s := range settings {
		b.Queue(s)
	}
	for _, name := range queryNames {
		b.Queue(queries[name])
	}
	res := tx.SendBatch(ctx, b)
	for _, s := range settings {
		if _, err := res.Exec(); err != nil {
			res.Close()
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	// Each result is decoded (and function bodies normalized) while the server produces the
	// next one.
	d := newDecoder(opts)
	var g fault.Group
	for _, name := range queryNames {
		var js []byte
		if err := res.QueryRow().Scan(&js); err != nil {
			res.Close()
			g.Wait()
			return nil, fmt.Errorf("querying %s: %w", name, err)
		}
		g.Go(func() error { return d.decode(name, js) })
	}
	cerr := res.Close()
	err = g.Wait()
	if cerr != nil {
		return nil, fmt.Errorf("reading the catalog: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	s := d.assemble()
	s.Normalize()
	return s, nil
}

// relKey identifies a relation by schema and name.
type relKey struct{ schema, name string }

type columnRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Column
}

type constraintRow struct {
	OnSchema string `json:"on_schema"`
	OnName   string `json:"on_name"`
	OnKind   string `json:"on_kind"`
	Constraint
}

type indexRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Index
}

type sequenceRow struct {
	Sequence
	OwnedByParts []string `json:"owned_by"`
}

type triggerRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Trigger
}

type policyRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Policy
}

type ruleRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Rule
}

type statisticsRow struct {
	RelSchema string `json:"rel_schema"`
	RelName   string `json:"rel_name"`
	Statistics
}

type aggregateRow struct {
	Schema   string `json:"schema"`
	Name     string `json:"name"`
	ArgTypes string `json:"arg_types"`
	Aggregate
}

type publishedTableRow struct {
	RelSchema string   `json:"rel_schema"`
	RelName   string   `json:"rel_name"`
	Columns   []string `json:"columns"`
	Where     string   `json:"where"`
}

type publicationRow struct {
	Publication
	TableRows []publishedTableRow `json:"tables"`
}

// decoder holds the decoded results of the catalog queries.
type decoder struct {
	opts        Options
	s           *Snapshot
	columns     []columnRow
	constraints []constraintRow
	indexes     []indexRow
	sequences   []sequenceRow
	triggers    []triggerRow
	policies    []policyRow
	rules       []ruleRow
	statistics  []statisticsRow
	aggregates  []aggregateRow
	pubs        []publicationRow
}

func newDecoder(opts Options) *decoder { return &decoder{opts: opts, s: &Snapshot{}} }

// decode decodes the result of the query name. Calls for different names may run concurrently.
func (d *decoder) decode(name string, js []byte) error {
	s := d.s
	// The queries whose rows are completed in assemble decode into rows of their own; every
	// other decodes into its kind's list.
	targets := map[string]any{
		"columns": &d.columns, "constraints": &d.constraints, "indexes": &d.indexes,
		"sequences": &d.sequences, "triggers": &d.triggers, "policies": &d.policies,
		"rules": &d.rules, "statistics": &d.statistics, "aggregates": &d.aggregates, "publications": &d.pubs,
	}
	target, ok := targets[name]
	if !ok {
		target, ok = kindTarget(s, name)
	}
	if !ok {
		return fmt.Errorf("decoding %s: no such query", name)
	}
	if err := json.Unmarshal(js, target); err != nil {
		return fmt.Errorf("decoding %s: %w", name, err)
	}
	switch name {
	case "functions":
		return normalizeBodies(s.Functions, d.opts.NormalizeBody)
	case "views":
		normalizeViews(s.Views, d.opts.NormalizeView)
	}
	return nil
}

// normalizeViews fills in DefinitionNormalized: the normal form, or the definition itself when
// there is no normalizer or it cannot read the definition.
func normalizeViews(views []View, normalize ViewNormalizer) {
	for i := range views {
		v := &views[i]
		v.DefinitionNormalized = v.Definition
		if normalize == nil {
			continue
		}
		if norm, err := normalize(v.Definition); err == nil {
			v.DefinitionNormalized = norm
		}
	}
}

// normalizeBodies fills in BodyNormalized and BodyParse, spread over the CPUs. A worker that
// panics makes it return a *fault.PanicError.
func normalizeBodies(fns []Function, normalize BodyNormalizer) error {
	if normalize == nil {
		for i := range fns {
			fns[i].BodyNormalized, fns[i].BodyParse = fns[i].Body, "text"
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fns)/16))
	var g fault.Group
	for w := range workers {
		g.Go(func() error {
			for i := w; i < len(fns); i += workers {
				f := &fns[i]
				norm, method, err := normalize(f.Language, f.Arguments, f.Result, f.Body)
				f.BodyNormalized, f.BodyParse = norm, method
				if err != nil {
					f.BodyParse = method + " (" + err.Error() + ")"
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// assemble attaches columns, constraints and indexes to their relations and types.
func (d *decoder) assemble() *Snapshot {
	s := d.s
	tables := make(map[relKey]*Table, len(s.Tables))
	for i := range s.Tables {
		t := &s.Tables[i]
		t.Columns = []Column{}
		tables[relKey{t.Schema, t.Name}] = t
	}
	views := make(map[relKey]*View, len(s.Views))
	for i := range s.Views {
		v := &s.Views[i]
		v.Columns = []Column{}
		views[relKey{v.Schema, v.Name}] = v
	}
	types := make(map[relKey]*Type, len(s.Types))
	for i := range s.Types {
		types[relKey{s.Types[i].Schema, s.Types[i].Name}] = &s.Types[i]
	}
	for _, c := range d.columns {
		k := relKey{c.RelSchema, c.RelName}
		switch {
		case tables[k] != nil:
			tables[k].Columns = append(tables[k].Columns, c.Column)
		case views[k] != nil:
			views[k].Columns = append(views[k].Columns, c.Column)
		case types[k] != nil:
			types[k].Attributes = append(types[k].Attributes, c.Column)
		}
	}
	for _, c := range d.constraints {
		k := relKey{c.OnSchema, c.OnName}
		if c.OnKind == "domain" {
			if t := types[k]; t != nil {
				t.Constraints = append(t.Constraints, c.Constraint)
			}
		} else if t := tables[k]; t != nil {
			t.Constraints = append(t.Constraints, c.Constraint)
		}
	}
	for _, ix := range d.indexes {
		k := relKey{ix.RelSchema, ix.RelName}
		if t := tables[k]; t != nil {
			t.Indexes = append(t.Indexes, ix.Index)
		} else if v := views[k]; v != nil {
			v.Indexes = append(v.Indexes, ix.Index)
		}
	}
	for _, sq := range d.sequences {
		if len(sq.OwnedByParts) == 3 {
			sq.OwnedBy = qualify(sq.OwnedByParts...)
		}
		s.Sequences = append(s.Sequences, sq.Sequence)
	}
	for _, tg := range d.triggers {
		tg.Table = qualify(tg.RelSchema, tg.RelName)
		s.Triggers = append(s.Triggers, tg.Trigger)
	}
	for _, p := range d.policies {
		p.Table = qualify(p.RelSchema, p.RelName)
		if len(p.Roles) == 0 {
			p.Roles = []string{"PUBLIC"}
		}
		s.Policies = append(s.Policies, p.Policy)
	}
	for _, r := range d.rules {
		r.Table = qualify(r.RelSchema, r.RelName)
		s.Rules = append(s.Rules, r.Rule)
	}
	for _, st := range d.statistics {
		st.Table = qualify(st.RelSchema, st.RelName)
		s.Statistics = append(s.Statistics, st.Statistics)
	}
	if len(d.aggregates) > 0 {
		type fnKey struct{ schema, name, args string }
		fns := make(map[fnKey]*Function, len(s.Functions))
		for i := range s.Functions {
			f := &s.Functions[i]
			fns[fnKey{f.Schema, f.Name, f.ArgTypes}] = f
		}
		for _, a := range d.aggregates {
			if f := fns[fnKey{a.Schema, a.Name, a.ArgTypes}]; f != nil {
				f.Aggregate = &a.Aggregate
			}
		}
	}
	for _, p := range d.pubs {
		for _, t := range p.TableRows {
			p.Tables = append(p.Tables, PublishedTable{Table: qualify(t.RelSchema, t.RelName), Columns: t.Columns, Where: t.Where})
		}
		s.Publications = append(s.Publications, p.Publication)
	}
	nonNil(s)
	return s
}

// TakeURL connects to the database named by a connection URI or DSN ([Connect]) and takes a
// snapshot of it with [Take], read-only.
func TakeURL(ctx context.Context, dsn string, opts Options) (*Snapshot, error) {
	conn, err := Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return Take(ctx, conn, opts)
}

// Connect opens a connection to the database named by a connection URI or DSN, for [Take], as a
// privileged session (internal/privileged). It runs nothing on it. A string that does not parse is a [fault.Input]
// error; a connection failure is a [fault.Env] error.
func Connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("parsing the connection string: %w", err))
	}
	privileged.Config(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("connecting to %s: %w", cfg.Database, err))
	}
	return conn, nil
}
