package scratch_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ledgercheck/internal/scratch"
	"ledgercheck/internal/scratch/scratchtest"
	"ledgercheck/internal/sqlscript"
)

// TestTimeLimitsStopRunawayMigrations: an endless loop is stopped by statement_timeout and a
// migration of many slow statements by the install time limit, each reported at its statement.
// The statement each stopped at is the bound: the loop never ends by itself, and the fourth
// sleep is never run. (No wall-clock assertion: under load a limit fires late, never early.)
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

	err = sqlscript.ExecFile(ctx, db, "loop.sql", []byte("SELECT 1;\nDO $$ BEGIN LOOP END LOOP; END $$;\n"))
	var se *scratch.ScriptError
	if !errors.As(err, &se) || se.PgError() == nil || se.PgError().Code != "57014" || se.Pos.String() != "loop.sql:2:1" {
		t.Errorf("endless loop: got %v, want a statement timeout (57014) at loop.sql:2:1", err)
	}

	err = sqlscript.ExecFile(ctx, db, "slow.sql", []byte("SELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\nSELECT pg_sleep(0.8);\n"))
	if !errors.As(err, &se) || se.Pos.Line != 3 || se.SelfInflicted() == nil || !se.SelfInflicted().Timeout || !strings.Contains(se.Error(), "install time limit of 2s") {
		t.Errorf("slow migration: got %v, want the install time limit at slow.sql:3:1", err)
	}
}
