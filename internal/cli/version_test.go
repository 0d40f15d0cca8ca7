package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPostgresFromConfigAndFlag: the configuration's postgres: asks for a version, which a --dsn
// server must run (exit 3 with one line otherwise), and --pg overrides it.
func TestPostgresFromConfigAndFlag(t *testing.T) {
	dsn := hostDSN(t, "")
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	var num int
	err = conn.QueryRow(context.Background(), "SELECT current_setting('server_version_num')::int").Scan(&num)
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	major, other := num/10000, 17
	if major == 17 {
		other = 15
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ledgercheck.yaml")
	file := filepath.Join(dir, "m.sql")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "version: 2\npostgres: %d\n", other), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("NOTIFY pgrst, 'reload schema';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "lint", "-q", "--install", "--config", cfg, "--dsn", dsn, file)
	want := fmt.Sprintf("the --dsn server runs PostgreSQL %d, and this run asks for PostgreSQL %d", major, other)
	if code != ExitEnv || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("postgres: %d on a %d server: exit %d, stderr %q; want exit 3, one line saying %q", other, major, code, errs, want)
	}
	code, out, errs := runCLI(t, "lint", "-q", "--install", "--config", cfg, "--dsn", dsn, "--pg", fmt.Sprint(major), file)
	if code != ExitOK {
		t.Errorf("--pg %d over postgres: %d: exit %d, stdout %q, stderr %q; want exit 0", major, other, code, out, errs)
	}
}

// TestLintParseErrorOnPostgres17: lint --pg 17 says that its parser, not PostgreSQL 17, rejects
// syntax new in 17; without it, lint says PostgreSQL would reject the file.
func TestLintParseErrorOnPostgres17(t *testing.T) {
	t.Setenv("LEDGERCHECK_PG", "")
	file := writeSQL(t, "json_table.sql", "SELECT * FROM JSON_TABLE('[1]'::jsonb, '$[*]' COLUMNS (a int PATH '$'));\nNOTIFY pgrst, 'reload schema';\n")
	for args, want := range map[string]string{
		"":        "(PostgreSQL would reject the file) [parse-error]",
		"--pg=17": "(ledgercheck's parser, PostgreSQL 16's grammar, rejects the file; PostgreSQL 17 may take it",
		"--pg=15": "(PostgreSQL would reject the file) [parse-error]",
	} {
		code, out, errs := runCLI(t, strings.Fields("lint -q "+args+" "+file)...)
		if code != ExitFindings || !strings.Contains(out, want) {
			t.Errorf("lint %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, code, out, errs, want)
		}
	}
}
