package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestSnapshotCommandDSNIsReadOnlyAndMatchesTake(t *testing.T) {
	db := scratchtest.NewDatabase(t, 1536)
	src, err := os.ReadFile("../../migrations/decision_ledger.sql")
	if err != nil {
		t.Fatal(err)
	}
	scratchtest.Exec(t, db, "decision_ledger.sql", string(src))
	conn := scratchtest.Connect(t, db)
	want, err := introspect.Take(context.Background(), conn, introspect.Options{NormalizeBody: pgsql.NormalizeBody, NormalizeView: pgsql.NormalizeView})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "snapshot", "-q", "--dsn", db.URI(), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The snapshot inside report's versioned envelope (docs/json-schema.md).
	var doc struct {
		SchemaVersion int                 `json:"schema_version"`
		Snapshot      introspect.Snapshot `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != report.SchemaVersion {
		t.Errorf("schema_version %d, want %d", doc.SchemaVersion, report.SchemaVersion)
	}
	got := doc.Snapshot
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(&got)
	if !bytes.Equal(wj, gj) {
		t.Error("snapshot --dsn differs from Take on the same database")
	}
	after, err := introspect.Take(context.Background(), conn, introspect.Options{NormalizeBody: pgsql.NormalizeBody, NormalizeView: pgsql.NormalizeView})
	if err != nil {
		t.Fatal(err)
	}
	if fp := introspect.Diff(want, after); !fp.Empty() {
		t.Errorf("snapshot --dsn changed the database: %+v", fp)
	}

	code, stdout, _ = runCLI(t, "snapshot", "-q", "--dsn", db.URI())
	if code != 0 || !strings.Contains(stdout, "table public.agent_decision_ledger\n  acl:postgres:") ||
		!strings.Contains(stdout, "config:search_path: public, extensions") {
		t.Errorf("text snapshot (exit %d) lacks the ledger table or its functions' search_path:\n%.2000s", code, stdout)
	}
}

func TestSnapshotCommandErrors(t *testing.T) {
	scratchtest.Server(t) // skips (or fails under CI) without Postgres
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("CREATE TABLE public.x (id int);\nALTER TABLE public.thoughts ADD COLUMN zz nosuchtype;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"missing file", []string{"snapshot", "--install", filepath.Join(dir, "none.sql")}, 2, "none.sql: no such file"},
		{"footprint without install", []string{"snapshot", "--footprint"}, 2, "--footprint needs --install"},
		{"bad format", []string{"snapshot", "--format", "yaml"}, 2, "want one of text, json"},
		{"failing install", []string{"snapshot", "--install", bad}, 1, "bad.sql:2:43: ERROR: type \"nosuchtype\" does not exist"},
		{"unreachable dsn", []string{"snapshot", "--dsn", "postgresql://nobody@/x?host=" + dir}, 3, "connecting to x"},
		{"bad size", []string{"snapshot", "--scratch-size", "lots"}, 2, `invalid value "lots" for --scratch-size: size "lots": want`},
		{"tiny limit", []string{"snapshot", "--install", bad, "--server-memory", "64kB"}, 2, "--server-memory 64kB: want at least 1MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(tc.args, "-q")...)
			if code != tc.code || !strings.Contains(stderr, tc.message) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, stderr, tc.code, tc.message)
			}
		})
	}
}
