package locks

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// docQueries returns the SQL blocks of docs/reference/table-stats.md that export the statistics:
// the query under its marker comment (CSV through COPY), and the JSON wrapper that follows it.
func docQueries(t *testing.T) (query, jsonQuery string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "reference", "table-stats.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- table-stats query")
	if !ok {
		t.Fatal("docs/reference/table-stats.md has no table-stats query marker")
	}
	var blocks []string
	for len(blocks) < 2 {
		var body string
		if _, body, ok = strings.Cut(rest, "```sql\n"); !ok {
			t.Fatalf("docs/reference/table-stats.md: %d sql blocks after the marker, want 2", len(blocks))
		}
		var block string
		block, rest, _ = strings.Cut(body, "```")
		blocks = append(blocks, strings.TrimSuffix(strings.TrimSpace(block), ";"))
	}
	return blocks[0], blocks[1]
}

// The statistics exported by the documented query from a database filled with rows grade the
// locks by those rows: a rewrite of a table of 12,000 rows is "12 k rows, ... in production
// (medium)", in JSON and in CSV alike, and a table the file does not list keeps the scratch
// database's size, said as such.
func TestTableStatsFromARealDatabase(t *testing.T) {
	ctx := context.Background()
	prod := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, prod, "fill.sql", `INSERT INTO public.thoughts (content, metadata)
SELECT 'thought ' || g, jsonb_build_object('source', 'import', 'n', g) FROM generate_series(1, 12000) AS g;`)
	admin := scratchtest.Connect(t, prod)
	if _, err := admin.Exec(ctx, "ANALYZE public.thoughts"); err != nil {
		t.Fatal(err)
	}
	query, jsonQuery := docQueries(t)
	var jsonOut string
	if err := admin.QueryRow(ctx, jsonQuery).Scan(&jsonOut); err != nil {
		t.Fatalf("the documented JSON query: %v", err)
	}
	var csvOut bytes.Buffer
	if _, err := admin.PgConn().CopyTo(ctx, &csvOut, "COPY ("+query+") TO STDOUT WITH (FORMAT csv, HEADER)"); err != nil {
		t.Fatalf("the documented query as CSV: %v", err)
	}
	dir := t.TempDir()
	for name, data := range map[string]string{"table_stats.json": jsonOut, "table_stats.csv": csvOut.String()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := ReadStats(input.Scope{}, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sz, ok := st.Lookup("public", "thoughts")
		if !ok || sz.Rows != 12000 || sz.Bytes < 12000*50 {
			t.Fatalf("%s: public.thoughts is %+v (listed: %v), want 12000 rows and their bytes", name, sz, ok)
		}
		if m, ok := st.Lookup("public", "agent_memories"); !ok || m.Rows != 0 {
			t.Errorf("%s: public.agent_memories is %+v (listed: %v), want 0 rows", name, m, ok)
		}
		db := scratchtest.NewDatabase(t, 1536)
		ph := traced(t, db, filepath.Join(repo, "testdata", "locks", "lock-access-exclusive"), func(in *Input) { in.Stats = st })
		want := "ALTER TABLE rewrites table public.thoughts: 12 k rows, " + report.FormatBytes(sz.Bytes) + " in production (medium);"
		if len(ph.Findings) == 0 || !strings.HasPrefix(ph.Findings[0].Message, want) {
			t.Errorf("%s: the rewrite's finding is %v, want it to start %q", name, ph.Findings, want)
		}
		if len(ph.Locks) == 0 || ph.Locks[0].Rows != 12000 || ph.Locks[0].Source != "production" || ph.Locks[0].Grade != "medium" || !ph.Locks[0].Rewrite {
			t.Errorf("%s: the lock table is %+v, want the rewrite of 12000 rows in production, medium", name, ph.Locks)
		}
		if !strings.Contains(ph.Notes[0], "graded by production's sizes from "+path) {
			t.Errorf("%s: the phase's note is %q", name, ph.Notes[0])
		}
	}
}

// A statistics file that is neither shape, or whose counts are not counts, is an error that
// names the file and, for CSV, the line.
func TestParseStatsRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`[{"schema": "public", "table": "t", "rows": -3, "bytes": 8192}]`, "stats.json: entry 1: want schema and table"},
		{`[{"schema": "public", "table": "t", "rows": 3, "bytes": 8192, "extra": 1}]`, `stats.json: not a JSON array of {schema, table, rows, bytes}: json: unknown field "extra"`},
		{"schema,table,rows\npublic,t,3\n", "stats.json: line 1: the header has no bytes column"},
		{"schema,table,rows,bytes\npublic,t,3,8192\npublic,u,lots,8192\n", "stats.json: line 3: want schema and table"},
		{"[]", "stats.json: no table in it"},
	} {
		_, err := ParseStats("stats.json", []byte(c.data))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseStats(%q) = %v, want an error starting %q", c.data, err, c.want)
		}
	}
	st, err := ParseStats("stats.csv", []byte("bytes,rows,table,schema\n3.4e9,2.1e+06,thoughts,public\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sz, _ := st.Lookup("public", "thoughts"); sz.Rows != 2_100_000 || sz.Bytes != 3_400_000_000 {
		t.Errorf("columns in another order, counts as floats: %+v", sz)
	}
}
