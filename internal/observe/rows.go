package observe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fill"
)

// Rows that make access visible: the users A, B and C in auth.users (added by the superuser's
// session with pg_catalog-qualified SQL: no object of the migration's can be on auth.users,
// which only its owner, supabase_auth_admin, could give a trigger, rule or policy), then, on a
// session of the install role (the migration's own role, as fill's rows are), generated rows
// for every table of the surface that has none and rows owned by A, by B and by C (and by nobody
// where the owner may be NULL) in each table with an owner column. The run's reader (a
// privileged session: pg_catalog-qualified SQL, values read in the protocol's text format)
// counts the rows present, and reads the rows a persona's insert references.

// countSQL counts the rows of a table (spliced in), and those owned by A, B and C in its owner
// column (spliced in; NULL when it has none) compared as text; countUUIDSQL compares a uuid
// owner column.
const (
	countSQL = `SELECT pg_catalog.count(*),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $1::pg_catalog.text),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $2::pg_catalog.text),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $3::pg_catalog.text)
FROM %[1]s`
	countUUIDSQL = `SELECT pg_catalog.count(*),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $1::pg_catalog.uuid),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $2::pg_catalog.uuid),
  pg_catalog.count(*) FILTER (WHERE %[2]s OPERATOR(pg_catalog.=) $3::pg_catalog.uuid)
FROM %[1]s`
)

// sampleSQL reads a few rows of some columns of a table (both spliced in).
const sampleSQL = `SELECT %[2]s FROM %[1]s LIMIT 3`

// present is a table's rows, and how many A, B and C own (all is -1 when not counted).
type present struct{ all, a, b, c int }

// rowCounts are the rows present, by table (keyed as fill names tables: see display).
type rowCounts map[string]present

// of is the count of the table of quote_ident identity ident.
func (c rowCounts) of(ident string) (present, bool) {
	p, ok := c[identDisplay(ident)]
	return p, ok && p.all >= 0
}

// set records the count of the table of identity ident.
func (c rowCounts) set(ident string, p present) { c[identDisplay(ident)] = p }

// Conns are the sessions the rows need: the superuser's (auth.users), the install role's (the
// rows) and the reader's (the counts).
type Conns struct {
	Admin, Install, Reader *pgx.Conn
}

// addUsers adds A, B and C to auth.users (fill.AddUsers: the rerun audit's rows belong to
// them too), and D when the surface has a column whose default reads user_metadata (for
// metadataDefaults alone: the rows of auth.users are counted wherever a view shows them).
func addUsers(ctx context.Context, admin *pgx.Conn, s *Surface) error {
	users := []string{UserA, UserB, UserC}
	if s.fillsFromMetadata() {
		users = append(users, UserD)
	}
	if err := fill.AddUsers(ctx, admin, users); err != nil {
		return fmt.Errorf("the observation's users: %w", err)
	}
	return nil
}

// tables are the surface's tables (what rows can be inserted into), its own and related.
func (s *Surface) tables() []*Relation {
	var out []*Relation
	for _, r := range s.Relations {
		if r.table() {
			out = append(out, r)
		}
	}
	return out
}

// table reports whether r is a table (partitioned or not): what the reader may read, since
// reading one evaluates nothing the file defined (no view's query, no foreign table's wrapper).
func (r *Relation) table() bool { return r.Kind == "table" || r.Kind == "partitioned table" }

// count reads, as the reader, the rows present in each table of the surface (and how many A,
// B and C own where it has an owner column), and in every other table of the catalog outside
// Supabase's own schemas: a side effect shows only on a table that has rows.
func (o *observer) count(ctx context.Context) error {
	b := &pgx.Batch{}
	queue := func(ident, owner string, uuid bool) {
		q := countSQL
		if uuid {
			q = countUUIDSQL
		}
		b.Queue(fmt.Sprintf(q, quoteTable(ident), owner), UserA, UserB, UserC).QueryRow(func(row pgx.Row) error {
			var p present
			if err := row.Scan(&p.all, &p.a, &p.b, &p.c); err != nil {
				return err
			}
			o.present.set(ident, p)
			return nil
		})
	}
	done := map[string]bool{}
	for _, r := range o.s.tables() {
		col, uuid := "NULL", false
		if len(r.Owners) > 0 {
			col = qident(r.Owners[0])
			c := r.Column(r.Owners[0])
			uuid = c != nil && c.Type == "uuid"
		}
		queue(r.Ident, col, uuid)
		done[identDisplay(r.Ident)] = true
	}
	for _, t := range o.userTables() {
		if !done[t] {
			queue(displayIdent(t), "NULL", false)
		}
	}
	if err := o.c.Reader.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("counting the rows: %w", err)
	}
	return nil
}

// environmentSchemas are Supabase's own schemas: their tables are not given rows.
var environmentSchemas = []string{"auth", "storage", "net", "cron", "vault", "extensions", "realtime", "supabase_functions",
	"graphql", "graphql_public", "pgsodium", "supabase_migrations", "pgbouncer"}

// userTables are the tables that get rows when they have none, as fill names them: every table
// of the catalog after the install outside Supabase's own schemas when the requests may reach
// beyond the surface (o.wide), else the surface's tables and the tables its views read.
func (o *observer) userTables() []string {
	var out []string
	if !o.wide || o.in.Snapshot == nil {
		for _, r := range o.s.Relations {
			if r.table() {
				out = append(out, displayOf(r))
			}
			for _, b := range r.Bases {
				if schema := schemaOf(b); !slices.Contains(environmentSchemas, schema) {
					out = append(out, identDisplay(b))
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, t := range o.in.Snapshot.Tables {
		if (t.Kind == "table" || t.Kind == "partitioned table") && t.PartitionOf == "" && !slices.Contains(environmentSchemas, t.Schema) {
			out = append(out, display(t.Schema, t.Name))
		}
	}
	return out
}

// displayIdent turns fill's name of a table back into quote_ident's identity, for quoteTable.
func displayIdent(name string) string { return name }

// countTables rowCounts, as the reader, the rows of the tables of idents not counted yet (a
// view's base, a table a function read).
func (o *observer) countTables(ctx context.Context, idents []string) error {
	b := &pgx.Batch{}
	for _, ident := range idents {
		if _, ok := o.present.of(ident); ok {
			continue
		}
		o.present.set(ident, present{all: -1})
		b.Queue(fmt.Sprintf(countSQL, quoteTable(ident), "NULL"), UserA, UserB, UserC).QueryRow(func(row pgx.Row) error {
			var p present
			if err := row.Scan(&p.all, &p.a, &p.b, &p.c); err != nil {
				return err
			}
			o.present.set(ident, p)
			return nil
		})
	}
	if b.Len() == 0 {
		return nil
	}
	if err := o.c.Reader.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("counting the rows: %w", err)
	}
	return nil
}

// fillRows inserts, as the install role, rows for the tables that have none (outside
// Supabase's schemas) and, with owned, rows owned by A, B and C in the tables of the surface
// with owner columns.
func (o *observer) fillRows(ctx context.Context, owned bool) error {
	var names []string
	fixed := map[string]map[string][]string{}
	for _, t := range o.userTables() {
		if p, ok := o.present[t]; ok && p.all == 0 {
			names = append(names, t)
		}
	}
	for _, r := range o.s.tables() {
		// A table whose policies look the user up in another relation (a membership table)
		// gets the generated rows even when it has rows: theirs share their values with the
		// membership rows generated for A, B and C (fill's Shared), so that what a member reads
		// of it shows (rows generated before, by another seed, share nothing with them).
		if key := displayOf(r); owned && len(o.s.memberships(r)) > 0 && !slices.Contains(names, key) {
			names = append(names, key)
		}
		if len(r.Owners) == 0 || !owned {
			continue
		}
		key := displayOf(r)
		if !slices.Contains(names, key) {
			names = append(names, key)
		}
		for _, col := range r.Owners {
			vals := []string{r.ownerLiteral(col, UserA), r.ownerLiteral(col, UserB), r.ownerLiteral(col, UserC)}
			if c := r.Column(col); c != nil && !c.NotNull {
				vals = append(vals, "NULL")
			}
			if fixed[key] == nil {
				fixed[key] = map[string][]string{}
			}
			fixed[key][col] = vals
		}
	}
	if len(names) == 0 || o.in.Snapshot == nil {
		return nil
	}
	// Two rows show that a request reads (or changes) every row or some; a table with an owner
	// column gets one per owner (A, B, C, and nobody where it may).
	plan := fill.New(nil, o.in.Snapshot, fill.Options{Seed: seed, Rows: 2, Tables: names, Fixed: fixed, Shared: true})
	if err := o.open(ctx, &o.c.Install, nil, o.db.Connect); err != nil {
		return err
	}
	res, err := fill.Run(ctx, o.c.Install, plan)
	if err != nil {
		return fmt.Errorf("generating rows: %w", err)
	}
	if !owned {
		return nil
	}
	for _, sk := range res.Skipped {
		o.notes = append(o.notes, fmt.Sprintf("no rows could be generated for %s: %s", sk.Table, sk.Reason))
	}
	return nil
}

// seed seeds the observation's rows and values (not the rerun audit's: its rows are others).
const seed = 31

// samples reads, as the reader, a few rows of the columns of each table that a persona's insert
// references through a foreign key, and of the tables whose policies read a client-controlled
// value (with the tables those policies read: the value may be one of their rows').
func (o *observer) samples(ctx context.Context) error {
	want := map[string][]string{}
	for _, r := range o.s.tables() {
		if r.Related {
			continue
		}
		for _, fk := range r.ForeignKeys {
			want[fk.References] = append(want[fk.References], fk.RefColumns...)
		}
		if len(r.clientValues(nil, "")) > 0 {
			for _, read := range o.valueSources(r) {
				for _, c := range read.Columns {
					if ownerType(c.Type) {
						want[read.Ident] = append(want[read.Ident], c.Name)
					}
				}
			}
		}
	}
	for _, table := range slices.Sorted(maps.Keys(want)) {
		cols := want[table]
		slices.Sort(cols)
		cols = slices.Compact(cols)
		var list []string
		for _, c := range cols {
			list = append(list, qident(c))
		}
		rows, err := readText(ctx, o.c.Reader, fmt.Sprintf(sampleSQL, quoteTable(table), strings.Join(list, ", ")))
		if err != nil {
			return fmt.Errorf("reading the referenced rows: %w", err)
		}
		for _, vals := range rows {
			row := map[string]string{}
			for i, c := range cols {
				if vals[i] != nil {
					row[c] = *vals[i]
				}
			}
			o.refs[identDisplay(table)] = append(o.refs[identDisplay(table)], row)
		}
	}
	return nil
}

// readText runs sql with params (text) on conn and returns its rows in the protocol's text
// format: the values are printed by their types' output functions, never cast or converted by
// ledgercheck.
func readText(ctx context.Context, conn *pgx.Conn, sql string, params ...string) ([][]*string, error) {
	vals := make([][]byte, len(params))
	for i, p := range params {
		vals[i] = []byte(p)
	}
	rr := conn.PgConn().ExecParams(ctx, sql, vals, nil, nil, nil)
	var out [][]*string
	for rr.NextRow() {
		row := make([]*string, len(rr.Values()))
		for i, v := range rr.Values() {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	_, err := rr.Close()
	return out, err
}

// quoteTable quotes a relation given as quote_ident's schema.name ("public.t", `app."T"`).
func quoteTable(ident string) string {
	schema, name := splitLast(ident)
	return quoteIdentOf(schema) + "." + quoteIdentOf(name)
}

// quoteIdentOf quotes a name as quote_ident printed it (quoted, or plain).
func quoteIdentOf(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s
	}
	return qident(s)
}

// row is the INSERT of a generated row of r with fixed values, for a persona ("" when r cannot
// be planned). Row numbers start past the rows fill generated, so that unique values differ.
func (o *observer) row(r *Relation, fixed map[string]string) string {
	if o.plan == nil {
		return ""
	}
	t := o.plan.Table(displayOf(r))
	if t == nil {
		return ""
	}
	o.rowN++
	return t.Row(seed, 100+o.rowN, fixed, o.refsOf(t))
}

// refsOf are the sampled rows of the tables t references.
func (o *observer) refsOf(t *fill.Table) map[string][]map[string]string {
	out := map[string][]map[string]string{}
	for ref := range t.References() {
		if rows, ok := o.refs[ref]; ok {
			out[ref] = rows
		}
	}
	return out
}

// displayOf is the relation as fill names tables: schema.name, each part quoted only when it
// must be.
func displayOf(r *Relation) string { return display(r.Schema, r.Name) }

// identDisplay is display of a quote_ident identity.
func identDisplay(ident string) string { return display(schemaOf(ident), nameOf(ident)) }

// display is fill's name of a table.
func display(schema, name string) string { return fill.Name(schema, name) }

func schemaOf(ident string) string { s, _ := splitLast(ident); return unquote(s) }
func nameOf(ident string) string   { _, n := splitLast(ident); return unquote(n) }

// unquote is a name as quote_ident printed it, unquoted.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		inner := s[1 : len(s)-1]
		out := ""
		for i := 0; i < len(inner); i++ {
			out += string(inner[i])
			if inner[i] == '"' && i+1 < len(inner) && inner[i+1] == '"' {
				i++
			}
		}
		return out
	}
	return s
}
