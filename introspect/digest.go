package introspect

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Digest is the content of every user table of one database: for each table its row count and an
// order-independent hash of its rows. Two digests of the same data are equal whatever the
// physical row order; a lost, duplicated or changed row changes the table's hash. It also holds
// the rest of the database's state that is not in the catalog: where each sequence stands, and
// the large objects.
type Digest struct {
	// Tables are sorted by name.
	Tables []TableDigest `json:"tables"`
	// Sequences are the sequences of the schemas the tables come from, sorted by name.
	Sequences []SequenceState `json:"sequences,omitempty"`
	// LargeObjects are the database's large objects, sorted by OID.
	LargeObjects []LargeObject `json:"large_objects,omitempty"`
}

// TableDigest is the content digest of one table.
type TableDigest struct {
	// Table is the schema-qualified table name, as in a [Snapshot]'s table identities.
	Table string `json:"table"`
	// Rows is the row count.
	Rows int64 `json:"rows"`
	// Hash is the md5 (hex) of the concatenated, sorted per-row hashes. Each row hash is the md5
	// of the row's text form (ROW(t.*)::text) under the snapshot's pinned output settings.
	Hash string `json:"hash"`
	// RowHashes are the per-row hashes, sorted; kept so that [CompareRows] can say which rows
	// were lost, duplicated or changed. Not part of the JSON form.
	RowHashes []RowHash `json:"-"`
	// Content names the columns of [RowHash.Content] (no default, identity or generation
	// expression), in table order. Not part of the JSON form.
	Content []string `json:"-"`
}

// RowHash identifies one row's content.
type RowHash struct {
	// Full is the md5 of the whole row's text form.
	Full string
	// Content is the md5 of the row without the columns that have a default, an identity or a
	// generation expression (ids, created_at, updated_at): two rows with the same Content and a
	// different Full are the same record inserted twice, or one record whose bookkeeping columns
	// changed.
	Content string
	// Values is the row as a JSON object, columns in table order, each value its text form (as
	// its type's output function prints it, what psql shows) or null, when the digest was taken
	// with [Options.RowValues] and the table has at most that many rows; else "".
	Values string
}

// Table returns the digest of the table named name (schema-qualified), if d has it.
func (d *Digest) Table(name string) (TableDigest, bool) {
	i, ok := slices.BinarySearchFunc(d.Tables, name, func(t TableDigest, n string) int { return cmp.Compare(t.Table, n) })
	if !ok {
		return TableDigest{}, false
	}
	return d.Tables[i], true
}

// digestTablesQuery lists the ordinary tables and the sequences of the user schemas: kind ('r' or
// 'S'), schema and name, for a table the columns without a default, identity or generation
// expression (empty when there are none), for a sequence its increment, and for a table the size
// of its main fork (0: it has never held a row, and is not read). The schema filters are
// appended by [digestTables]; they are the ones [Take] applies.
const digestTablesQuery = `
SELECT c.relkind::pg_catalog.text, n.nspname::pg_catalog.text, c.relname::pg_catalog.text,
       coalesce((SELECT pg_catalog.array_agg(a.attname::pg_catalog.text ORDER BY a.attnum)
                   FROM pg_attribute a
                  WHERE c.relkind OPERATOR(pg_catalog.=) 'r'
                    AND a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                    AND NOT a.atthasdef AND a.attidentity OPERATOR(pg_catalog.=) '' AND a.attgenerated OPERATOR(pg_catalog.=) ''), '{}'),
       coalesce((SELECT s.seqincrement FROM pg_sequence s WHERE s.seqrelid OPERATOR(pg_catalog.=) c.oid), 0),
       CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'r' THEN pg_catalog.pg_relation_size(c.oid) ELSE 0 END
  FROM pg_class c
  JOIN pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
 WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'S']::pg_catalog.char[])`

// digestRowsQuery reads one hash pair per row of a table; %[1]s is the quoted table name, %[2]s
// the content columns' select list. The hashes are of the row's text form: ROW(...) is an
// anonymous record, whose text is record_out's, which prints each column with its type's output
// function (not a cast: a user cannot create a cast from record, which the bootstrap superuser
// owns, nor a base type whose output function is not C), so no function of the migration's
// runs while a row is hashed.
const digestRowsQuery = `SELECT pg_catalog.md5(ROW(r.*)::pg_catalog.text), pg_catalog.md5(ROW(%[2]s)::pg_catalog.text) FROM %[1]s AS r`

// digestValuesQuery is digestRowsQuery that also reads, in a table of at most %[3]d rows, every
// column of each row (the columns of v, all NULL in a larger table, whose third column is then
// false). The count is an uncorrelated subquery that reads at most one row more than that, once
// (%[4]d rows), so a large table is still read as a stream. The values come back in the
// protocol's text format, printed by their types' output functions: nothing casts them to json
// or text, which could run a cast the migration created.
const digestValuesQuery = `SELECT pg_catalog.md5(ROW(r.*)::pg_catalog.text), pg_catalog.md5(ROW(%[2]s)::pg_catalog.text), k.small, v.*
  FROM %[1]s AS r
 CROSS JOIN (SELECT pg_catalog.count(*) OPERATOR(pg_catalog.<=) %[3]d AS small FROM (SELECT FROM %[1]s LIMIT %[4]d) AS c) AS k
  LEFT JOIN LATERAL (SELECT r.* WHERE k.small) AS v ON true`

type digestTable struct {
	kind, schema, name string
	content            []string // a table's
	increment          int64    // a sequence's
	size               int64    // a table's main fork, in bytes
}

// TakeDigest reads the content digest of every ordinary table of the user schemas that opts
// selects (the schemas a [Snapshot] with the same options covers: the environment's schemas and
// extension-owned tables are left out unless asked for, or unless [Options.EnvironmentData]
// adds the environment's tables), the state of their sequences and the database's large
// objects (with [Options.LargeObjects]), in one REPEATABLE READ READ ONLY transaction with row security off, so that a table
// whose rows a policy would hide fails loudly instead of digesting part of the table. It changes
// nothing in the database.
func TakeDigest(ctx context.Context, db Beginner, opts Options) (*Digest, error) {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("digest: starting the transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only; nothing to keep

	// One round trip for the settings.
	if _, err := tx.Exec(ctx, strings.Join(append(slices.Clone(settings), `SET LOCAL row_security = off`), ";\n")); err != nil {
		return nil, fmt.Errorf("digest: settings: %w", err)
	}
	all, seqs, err := digestTables(ctx, tx, opts)
	if err != nil {
		return nil, err
	}
	d := &Digest{Tables: make([]TableDigest, 0, len(all))}
	// A table that never held a row (its main fork is empty) is not read: most of the
	// environment's are.
	var tables []digestTable
	for _, t := range all {
		if t.size == 0 {
			d.Tables = append(d.Tables, emptyTable(t))
			continue
		}
		tables = append(tables, t)
	}
	// Text results for every column (nil result formats): see digestValuesQuery.
	b := &pgconn.Batch{}
	if opts.LargeObjects {
		b.ExecParams(largeObjectsQuery, nil, nil, nil, nil)
	}
	if len(seqs) > 0 {
		b.ExecParams(sequencesQuery(seqs), nil, nil, nil, nil)
	}
	for _, t := range tables {
		quoted := pgx.Identifier{t.schema, t.name}.Sanitize()
		cols := make([]string, len(t.content))
		for i, c := range t.content {
			cols[i] = "r." + pgx.Identifier{c}.Sanitize()
		}
		sql := fmt.Sprintf(digestRowsQuery, quoted, strings.Join(cols, ", "))
		if opts.RowValues > 0 {
			sql = fmt.Sprintf(digestValuesQuery, quoted, strings.Join(cols, ", "), opts.RowValues, opts.RowValues+1)
		}
		b.ExecParams(sql, nil, nil, nil, nil)
	}
	res := tx.Conn().PgConn().ExecBatch(ctx, b)
	if err := readState(res, d, opts.LargeObjects, seqs); err != nil {
		res.Close()
		return nil, err
	}
	left := opts.DigestBytes // the bytes the digest may still keep (unbounded when 0)
	for _, t := range tables {
		if !res.NextResult() {
			break
		}
		td, err := readRows(res.ResultReader(), t, opts.RowValues > 0, &left, opts.DigestBytes)
		if err != nil {
			res.Close()
			return nil, err
		}
		d.Tables = append(d.Tables, td)
	}
	if err := res.Close(); err != nil {
		return nil, fmt.Errorf("digest: reading table contents: %w", err)
	}
	if len(d.Tables) != len(all) {
		return nil, fmt.Errorf("digest: reading table contents: %d results for %d tables", len(d.Tables), len(all))
	}
	slices.SortFunc(d.Tables, func(a, b TableDigest) int { return cmp.Compare(a.Table, b.Table) })
	return d, nil
}

// digestTables lists the tables and the sequences a digest covers (see [TakeDigest]).
func digestTables(ctx context.Context, tx pgx.Tx, opts Options) (tables, seqs []digestTable, err error) {
	q := digestTablesQuery + "\n   AND " + userSchemaFilter(opts, "n")
	if !opts.IncludeExtensionObjects {
		q += "\n   AND " + fmt.Sprintf(extensionMemberTemplate, "pg_class", "c.oid")
	}
	if opts.EnvironmentData {
		// The environment's tables (and sequences) whoever's extension they belong to: pg_net
		// keeps its queue in net.http_request_queue, pg_cron its jobs in cron.job.
		q += "\n   OR c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'S']::pg_catalog.char[]) AND n.nspname OPERATOR(pg_catalog.=) ANY (" + textArray(EnvironmentSchemas) + ")"
	}
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("digest: listing tables: %w", err)
	}
	for rows.Next() {
		var t digestTable
		if err := rows.Scan(&t.kind, &t.schema, &t.name, &t.content, &t.increment, &t.size); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("digest: listing tables: %w", err)
		}
		if t.kind == "S" {
			seqs = append(seqs, t)
		} else {
			tables = append(tables, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("digest: listing tables: %w", err)
	}
	return tables, seqs, nil
}

// emptyTable is the digest of t, a table without a row.
func emptyTable(t digestTable) TableDigest {
	return TableDigest{Table: qualify(t.schema, t.name), Content: t.content, Hash: hex.EncodeToString(md5.New().Sum(nil))}
}

// DigestTooLargeError is the error of a digest that would keep more than [Options.DigestBytes].
type DigestTooLargeError struct {
	Table string // the table being read when the digest reached its bound
	Limit int64
}

func (e *DigestTooLargeError) Error() string {
	return fmt.Sprintf("digest: the content digest reached its bound of %d bytes at table %s", e.Limit, e.Table)
}

// readRows reads the result of digestRowsQuery (or, with values, digestValuesQuery) for t; left
// is what the digest may still keep of limit bytes (limit 0: no bound).
func readRows(rr *pgconn.ResultReader, t digestTable, values bool, left *int64, limit int64) (TableDigest, error) {
	name := qualify(t.schema, t.name)
	td := TableDigest{Table: name, Content: t.content}
	fields := rr.FieldDescriptions()
	for rr.NextRow() {
		vals := rr.Values()
		if len(vals) < 2 {
			break
		}
		h := RowHash{Full: string(vals[0]), Content: string(vals[1])}
		if values && len(vals) > 2 && string(vals[2]) == "t" {
			h.Values = rowJSON(fields[3:], vals[3:])
		}
		if limit > 0 {
			// What a kept row costs: its strings and their headers.
			if *left -= int64(len(h.Full) + len(h.Content) + len(h.Values) + 48); *left < 0 {
				rr.Close() //nolint:errcheck // the bound is the error
				return TableDigest{}, &DigestTooLargeError{Table: name, Limit: limit}
			}
		}
		td.RowHashes = append(td.RowHashes, h)
	}
	if _, err := rr.Close(); err != nil {
		return TableDigest{}, fmt.Errorf("digest: reading table %s: %w", name, err)
	}
	slices.SortFunc(td.RowHashes, func(a, b RowHash) int {
		return cmp.Or(cmp.Compare(a.Full, b.Full), cmp.Compare(a.Content, b.Content))
	})
	td.Rows = int64(len(td.RowHashes))
	sum := md5.New()
	for _, h := range td.RowHashes {
		sum.Write([]byte(h.Full))
	}
	td.Hash = hex.EncodeToString(sum.Sum(nil))
	return td, nil
}

// rowJSON renders a row read in the text format as a JSON object, columns in table order, each
// value its text (what psql prints), NULL as null.
func rowJSON(fields []pgconn.FieldDescription, vals [][]byte) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteByte(':')
		if i >= len(vals) || vals[i] == nil {
			b.WriteString("null")
			continue
		}
		v, _ := json.Marshal(string(vals[i]))
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// RowDelta says how a table's rows differ between two digests of it. Rows present on both
// sides are not counted. Classification, in this order: an extra row whose content (see
// [RowHash.Content]) equals a missing row's is that row, changed; an extra row whose content
// equals any row of before is a duplicate; the remaining extra and missing rows pair up as
// changed rows; what is left is lost (missing) or added (extra).
type RowDelta struct {
	// Before and After are the row counts.
	Before, After int64
	// Lost are rows of before that are gone.
	Lost int64
	// Duplicated are extra rows that repeat a row of before.
	Duplicated int64
	// Changed are rows of before whose values changed.
	Changed int64
	// Added are other extra rows.
	Added int64
}

// Zero reports whether the rows are the same on both sides.
func (d RowDelta) Zero() bool {
	return d.Lost == 0 && d.Duplicated == 0 && d.Changed == 0 && d.Added == 0
}

// String says what happened, e.g. "lost 3 rows, changed 2 rows (5 rows before, 2 after)".
func (d RowDelta) String() string {
	var parts []string
	add := func(n int64, verb string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", verb, rowsWord(n)))
		}
	}
	add(d.Lost, "lost")
	add(d.Duplicated, "duplicated")
	add(d.Changed, "changed")
	add(d.Added, "added")
	if len(parts) == 0 {
		parts = append(parts, "no change")
	}
	return fmt.Sprintf("%s (%s before, %d after)", strings.Join(parts, ", "), rowsWord(d.Before), d.After)
}

func rowsWord(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// CompareRows classifies how the rows of a table changed from before to after (see [RowDelta]).
func CompareRows(before, after TableDigest) RowDelta {
	d := RowDelta{Before: before.Rows, After: after.Rows}
	if before.Hash == after.Hash && before.Rows == after.Rows {
		return d
	}
	c := ClassifyRows(before, after)
	d.Lost, d.Duplicated, d.Changed, d.Added = int64(len(c.Lost)), int64(len(c.Duplicated)), int64(len(c.Changed)), int64(len(c.Added))
	return d
}

// RowChanges are the rows of a table that differ between two digests of it, as [RowDelta]
// counts them.
type RowChanges struct {
	// Changed pairs a row of before with the row of after it became.
	Changed [][2]RowHash
	// Duplicated, Added and Lost are extra rows that repeat a row of before, other extra rows,
	// and rows of before that are gone.
	Duplicated, Added, Lost []RowHash
}

// ClassifyRows says which rows changed from before to after: an extra row whose content
// ([RowHash.Content]) equals a missing row's is that row, changed; an extra row whose content
// equals any row of before is a duplicate; the remaining extra and missing rows pair up as
// changed rows (each with the missing row that has the most equal columns, when the digests
// kept the values, else in order); what is left is lost or added.
func ClassifyRows(before, after TableDigest) RowChanges {
	var c RowChanges
	count := map[string]int{} // multiset difference on full hashes
	for _, h := range before.RowHashes {
		count[h.Full]++
	}
	var extra, missing []RowHash
	for _, h := range after.RowHashes {
		if count[h.Full] > 0 {
			count[h.Full]--
			continue
		}
		extra = append(extra, h)
	}
	for _, h := range before.RowHashes {
		if count[h.Full] > 0 {
			count[h.Full]--
			missing = append(missing, h)
		}
	}
	byContent := map[string][]int{} // the missing rows of each content, not paired yet
	for i, m := range missing {
		byContent[m.Content] = append(byContent[m.Content], i)
	}
	beforeContent := map[string]bool{}
	for _, h := range before.RowHashes {
		beforeContent[h.Content] = true
	}
	paired := make([]bool, len(missing))
	var rest []RowHash
	for _, h := range extra {
		switch ms := byContent[h.Content]; {
		case len(ms) > 0:
			byContent[h.Content] = ms[1:]
			paired[ms[0]] = true
			c.Changed = append(c.Changed, [2]RowHash{missing[ms[0]], h})
		case beforeContent[h.Content]:
			c.Duplicated = append(c.Duplicated, h)
		default:
			rest = append(rest, h)
		}
	}
	for i, m := range missing {
		if !paired[i] {
			c.Lost = append(c.Lost, m)
		}
	}
	for len(rest) > 0 && len(c.Lost) > 0 {
		h, best := rest[0], 0
		if h.Values != "" {
			most := -1
			for j, l := range c.Lost {
				if n := sameValues(l.Values, h.Values); n > most {
					best, most = j, n
				}
			}
		}
		c.Changed = append(c.Changed, [2]RowHash{c.Lost[best], h})
		rest, c.Lost = rest[1:], slices.Delete(c.Lost, best, best+1)
	}
	c.Added = rest
	return c
}

// sameValues counts the columns two rows' values (JSON objects) have equal.
func sameValues(x, y string) int {
	var a, b map[string]json.RawMessage
	if json.Unmarshal([]byte(x), &a) != nil || json.Unmarshal([]byte(y), &b) != nil {
		return 0
	}
	n := 0
	for k, v := range a {
		if w, ok := b[k]; ok && bytes.Equal(v, w) {
			n++
		}
	}
	return n
}
