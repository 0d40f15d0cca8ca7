package scratch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// fakeBinDir returns a directory with executable initdb and postgres files (not a server).
func fakeBinDir(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestVersionSelectsBinDir: a version asked for (--pg, else $LEDGERCHECK_PG) selects that
// version's directory, over $LEDGERCHECK_PG_BIN; --pg-bin wins over both; a version that is not
// installed is an environment error naming the setup command; an unsupported one an input error.
func TestVersionSelectsBinDir(t *testing.T) {
	v17 := fakeBinDir(t)
	scratch.SetVersionBinDirs(t, 17, filepath.Join(t.TempDir(), "absent"), v17)
	t.Setenv(scratch.BinDirEnv, fakeBinDir(t))
	t.Setenv(scratch.VersionEnv, "")
	if got, err := scratch.FindBinDir("", 17); err != nil || got != v17 {
		t.Errorf("--pg 17: got %q, %v; want %s", got, err, v17)
	}
	t.Setenv(scratch.VersionEnv, "17")
	if got, err := scratch.FindBinDir("", 0); err != nil || got != v17 {
		t.Errorf("%s=17: got %q, %v; want %s", scratch.VersionEnv, got, err, v17)
	}
	explicit := fakeBinDir(t)
	if got, err := scratch.FindBinDir(explicit, 17); err != nil || got != explicit {
		t.Errorf("--pg-bin with --pg 17: got %q, %v; want %s", got, err, explicit)
	}

	scratch.SetVersionBinDirs(t, 17, t.TempDir())
	_, err := scratch.FindBinDir("", 17)
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), "PostgreSQL 17 is not installed") || !strings.Contains(err.Error(), "`ledgercheck setup --pg 17`") {
		t.Errorf("--pg 17 not installed: got %v, want an environment error naming ledgercheck setup --pg 17", err)
	}
	for _, tc := range []struct {
		env   string
		major int
		want  string
	}{
		{"", 16, "--pg 16: ledgercheck runs PostgreSQL 15 or 17"},
		{"16", 0, "LEDGERCHECK_PG=16: ledgercheck runs PostgreSQL 15 or 17"},
		{"seventeen", 0, "LEDGERCHECK_PG=seventeen: want a PostgreSQL major version, 15 or 17"},
	} {
		t.Setenv(scratch.VersionEnv, tc.env)
		_, err := scratch.Start(context.Background(), scratch.Options{Postgres: tc.major})
		if fault.KindOf(err) != fault.KindInput || err.Error() != tc.want {
			t.Errorf("env %q, --pg %d: got %v, want the input error %q", tc.env, tc.major, err, tc.want)
		}
	}
}

// TestVersionMismatch: binaries of another version than the one asked for are refused before a
// cluster is made.
func TestVersionMismatch(t *testing.T) {
	scratchtest.NeedPostgres(t)
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	major, err := scratch.BinMajor(bin)
	if err != nil {
		t.Fatal(err)
	}
	other := 15
	if major == 15 {
		other = 17
	}
	_, err = scratch.Start(context.Background(), scratch.Options{PGBin: bin, Postgres: other})
	want := fmt.Sprintf("the server binaries in %s are PostgreSQL %d, and this run asks for PostgreSQL %d", bin, major, other)
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an environment error saying %q", err, want)
	}
}

// TestServerModeVersion: a --dsn server of another major version than the one asked for is
// refused (exit 3) before anything is created there; one of that version reports it.
func TestServerModeVersion(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	ctx := context.Background()
	s, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN})
	if err != nil {
		t.Fatal(err)
	}
	major, version := s.Major(), s.Version()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, strconv.Itoa(major)+".") {
		t.Errorf("Version() = %q, want %d.minor", version, major)
	}
	same, err := scratch.Start(ctx, scratch.Options{DSN: srv.DSN, Postgres: major})
	if err != nil {
		t.Fatalf("asking for the server's own version %d: %v", major, err)
	}
	same.Close()
	other := 15
	if major == 15 {
		other = 17
	}
	_, err = scratch.Start(ctx, scratch.Options{DSN: srv.DSN, Postgres: other})
	want := fmt.Sprintf("the --dsn server runs PostgreSQL %d, and this run asks for PostgreSQL %d", major, other)
	if fault.KindOf(err) != fault.KindEnv || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an environment error saying %q", err, want)
	}
}
