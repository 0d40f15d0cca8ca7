package migrations_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// variant is one install of the decision ledger.
type variant struct {
	name string
	file string // relative to migrations/
	dim  int
	// port: pins live in agent_decision_pins instead of the ledger's pinned column.
	port bool
}

var (
	artifact = variant{name: "artifact", file: "decision_ledger.sql", dim: 1536}
	port     = variant{name: "port", file: "ports/decision_ledger_1024.sql", dim: 1024, port: true}
	firstCut = variant{name: "first_cut", file: "../testdata/fixtures/first_cut.sql", dim: 1536}
	// shipped are the two files the project ships; every behaviour they share is tested on both.
	shipped = []variant{artifact, port}
)

// ledgerDB is a scratch database with one variant of the ledger installed.
type ledgerDB struct {
	t    testing.TB
	v    variant
	db   *scratch.Database
	conn *pgx.Conn
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// install creates a fresh database at the variant's dimension and applies the variant's file.
func install(t testing.TB, v variant) *ledgerDB {
	t.Helper()
	db := scratchtest.NewDatabase(t, v.dim)
	l := &ledgerDB{t: t, v: v, db: db}
	l.apply(v.file)
	l.conn = scratchtest.Connect(t, db)
	return l
}

// apply runs a file (path relative to migrations/) in the database, statement by statement.
func (l *ledgerDB) apply(file string) {
	l.t.Helper()
	if err := sqlscript.ExecFile(context.Background(), l.db, file, readFile(l.t, file)); err != nil {
		l.t.Fatalf("applying %s (%s): %v", file, l.v.name, err)
	}
}

func (l *ledgerDB) exec(sql string, args ...any) {
	l.t.Helper()
	if _, err := l.conn.Exec(context.Background(), sql, args...); err != nil {
		l.t.Fatalf("%s: %v", firstLine(sql), err)
	}
}

func (l *ledgerDB) queryRow(sql string, args []any, dest ...any) {
	l.t.Helper()
	if err := l.conn.QueryRow(context.Background(), sql, args...).Scan(dest...); err != nil {
		l.t.Fatalf("%s: %v", firstLine(sql), err)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// decision describes one memory written through agent_memories, the ledger's only write path.
type decision struct {
	workspace, project, task string
	memoryType               string // default "decision"
	content                  string
	confidence               float64 // default 0.5
	lifecycle                string  // default "active"
	metadata                 string  // JSON, default "{}"
	thought                  string  // thoughts.id to link, or ""
}

// add inserts the memory and returns its id.
func (l *ledgerDB) add(d decision) string {
	l.t.Helper()
	if d.memoryType == "" {
		d.memoryType = "decision"
	}
	if d.confidence == 0 {
		d.confidence = 0.5
	}
	if d.lifecycle == "" {
		d.lifecycle = "active"
	}
	if d.metadata == "" {
		d.metadata = "{}"
	}
	if d.workspace == "" {
		d.workspace = "ws"
	}
	var id string
	l.queryRow(`
		INSERT INTO public.agent_memories
		  (workspace_id, project_id, task_id, memory_type, summary, content, confidence,
		   lifecycle_status, metadata, thought_id)
		VALUES ($1, nullif($2, ''), nullif($3, ''), $4, left($5, 140), $5, $6, $7, $8::jsonb,
		        nullif($9, '')::uuid)
		RETURNING id::text`,
		[]any{d.workspace, d.project, d.task, d.memoryType, d.content, d.confidence, d.lifecycle, d.metadata, d.thought},
		&id)
	return id
}

// unitVector returns the text of a vector of length dim with sign at position axis, 0 elsewhere.
func unitVector(dim, axis int, sign float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < dim; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == axis {
			b.WriteString(strconv.FormatFloat(sign, 'f', -1, 64))
		} else {
			b.WriteByte('0')
		}
	}
	b.WriteByte(']')
	return b.String()
}

// thought captures content through upsert_thought, sets its embedding (as the capture flow does,
// in a second statement) and returns its id.
func (l *ledgerDB) thought(content, embedding string) string {
	l.t.Helper()
	var id string
	l.queryRow(`SELECT public.upsert_thought($1, '{"metadata": {"source": "test"}}') ->> 'id'`, []any{content}, &id)
	if embedding != "" {
		l.exec(`UPDATE public.thoughts SET embedding = $1::text::vector WHERE id = $2::uuid`, embedding, id)
	}
	return id
}

// pin pins a decision in whichever shape the variant has.
func (l *ledgerDB) pin(memoryID string) {
	l.t.Helper()
	if l.v.port {
		l.exec(`INSERT INTO public.agent_decision_pins (memory_id, pinned_by) VALUES ($1::uuid, 'test')`, memoryID)
		return
	}
	l.exec(`UPDATE public.agent_decision_ledger SET pinned = true WHERE memory_id = $1::uuid`, memoryID)
}

// row is one result row of match_decision_ledger, as JSON, so that the first cut's 12-column
// shape and the revision's 13-column shape decode alike.
type row map[string]any

func (r row) id() string { return r["memory_id"].(string) }

func (r row) f(col string) float64 {
	v, ok := r[col].(float64)
	if !ok {
		panic(fmt.Sprintf("column %s is %T (%v), not a number", col, r[col], r[col]))
	}
	return v
}

func (r row) source() (string, bool) {
	s, ok := r["relevance_source"].(string)
	return s, ok
}

// match calls match_decision_ledger with named arguments, e.g. match("p_workspace_id => $1", "ws").
func match(ctx context.Context, conn *pgx.Conn, args string, vals ...any) ([]row, error) {
	rows, err := conn.Query(ctx, "SELECT to_jsonb(r)::text FROM public.match_decision_ledger("+args+") AS r", vals...)
	if err != nil {
		return nil, err
	}
	texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make([]row, 0, len(texts))
	for _, s := range texts {
		var r row
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (l *ledgerDB) match(args string, vals ...any) []row {
	l.t.Helper()
	rows, err := match(context.Background(), l.conn, args, vals...)
	if err != nil {
		l.t.Fatalf("match_decision_ledger(%s): %v", args, err)
	}
	return rows
}

func byID(rows []row) map[string]row {
	m := make(map[string]row, len(rows))
	for _, r := range rows {
		m[r.id()] = r
	}
	return m
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}
