package scratch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"ledgercheck/scratch"
	"ledgercheck/scratch/scratchtest"
)

// TestTimeLimitsStopRunawayMigrations: an endless loop is stopped by statement_timeout and a
// migration of many slow statements by the install time limit, each reported at its statement.
func TestTimeLimitsStopRunawayMigrations(t *testing.T) {
	scratchtest.Server(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{StatementTimeout: time.Second, InstallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t0 := time.Now()
	err = db.ExecFile(ctx, "loop.sql", []byte("SELECT 1;\nDO $$ BEGIN LOOP END LOOP; END $$;\n"))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != "57014" || se.Pos.String() != "loop.sql:2:1" {
		t.Errorf("endless loop: got %v, want a statement timeout (57014) at loop.sql:2:1", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("endless loop stopped after %v", d)
	}

	t0 = time.Now()
	err = db.ExecFile(ctx, "slow.sql", []byte("SELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\n"))
	if !errors.As(err, &se) || se.Pos.Line != 3 || !strings.Contains(se.Error(), "install time limit of 2s exceeded") {
		t.Errorf("slow migration: got %v, want the install time limit at slow.sql:3:1", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("slow migration stopped after %v", d)
	}
}

// TestCleanupDropsOnlyWhatDeadRunsLeft uses the package's embedded cluster as a --dsn server.
func TestCleanupDropsOnlyWhatDeadRunsLeft(t *testing.T) {
	host := scratchtest.Server(t)
	if !host.Embedded() {
		t.Skip("needs the embedded cluster as the host server")
	}
	ctx := context.Background()
	admin, err := host.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Drop(ctx)
	dsn := fmt.Sprintf("host=%s port=5432 user=supabase_admin dbname=postgres", host.Dir())

	// A live run in server mode: its databases carry this process's mark.
	live, err := scratch.Start(ctx, scratch.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	liveDB, err := live.NewEnvDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// What a killed run leaves: a marked database whose process is gone. Plus two look-alikes
	// that are not ledgercheck's: a name outside the pattern, and a right name without a mark.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.Connect(t, admin)
	stmts := []string{
		`CREATE DATABASE ledgercheck_0123456789ab`,
		fmt.Sprintf(`COMMENT ON DATABASE ledgercheck_0123456789ab IS 'ledgercheck scratch database; run %s:%d at %s'`, hostname(t), dead.Process.Pid, time.Now().UTC().Format(time.RFC3339)),
		`CREATE DATABASE ledgercheck_keepme`,
		`CREATE DATABASE ledgercheck_aaaaaaaaaaaa`,
	}
	for _, sql := range stmts {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	defer func() {
		for _, n := range []string{"ledgercheck_keepme", "ledgercheck_aaaaaaaaaaaa", "ledgercheck_0123456789ab"} {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+n)
		}
	}()

	dropped, err := scratch.Cleanup(ctx, dsn, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dropped, []string{"ledgercheck_0123456789ab"}) {
		t.Errorf("dropped %v, want only the dead run's ledgercheck_0123456789ab", dropped)
	}
	names := listDatabases(t, dsn)
	for _, keep := range []string{liveDB.Name, "ledgercheck_keepme", "ledgercheck_aaaaaaaaaaaa"} {
		if !slices.Contains(names, keep) {
			t.Errorf("cleanup dropped %s", keep)
		}
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
