package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestParityCommandShipped runs `ledgercheck parity --config ledgercheck.yaml --format json` on
// the shipped files (an embedded cluster of its own): exit 0, a JSON report on stdout only.
func TestParityCommandShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	code, out, errs := runCLI(t, "parity", "--config", "../../ledgercheck.yaml", "--format", "json")
	if code == ExitEnv {
		scratchtest.Unavailable(t, errors.New(errs)) // fails under CI=true
	}
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	// The one report document (docs/json-schema.md), with check's parity, probes and allowlist phases.
	var rep struct {
		SchemaVersion int    `json:"schema_version"`
		Status        string `json:"status"`
		Phases        []struct {
			Name     string         `json:"name"`
			Counts   map[string]int `json:"counts"`
			Findings []any          `json:"findings"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if rep.SchemaVersion != 1 || rep.Status != "pass" || len(rep.Phases) != 3 {
		t.Fatalf("report = %+v", rep)
	}
	par, probes, al := rep.Phases[0], rep.Phases[1], rep.Phases[2]
	if par.Name != "parity production-1024" || par.Counts["unreviewed"] != 0 || par.Counts["allowlisted"] != par.Counts["differences"] || par.Counts["normalized"] != 1 ||
		probes.Name != "probes production-1024" || probes.Counts["probes"] == 0 || al.Name != "allowlist production-1024" || al.Counts["stale"] != 0 {
		t.Errorf("report = %+v", rep)
	}
	if !strings.Contains(errs, "parity: artifact: ") || !strings.Contains(errs, "parity: pass in") {
		t.Errorf("progress should go to stderr, got %q", errs)
	}
}

// TestParityCommandInputErrors: configuration and allowlist errors are exit 2 with file:line,
// before any database is started.
func TestParityCommandInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "allow.yaml")
	if err := os.WriteFile(bad, []byte("version: 2\nentries:\n  - kind: table\n    object: public.t\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: TODO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "parity", "--config", "../../ledgercheck.yaml", "--allowlist", bad)
	if code != ExitInput || out != "" || !strings.Contains(errs, bad+":3: entry 1 (table public.t rls) has reason TODO") {
		t.Errorf("TODO reason: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("version: 2\nartifact: {file: a.sql, dim: 1536}\nports:\n  - {file: b.sql, dim: 1024}\nprobe: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "parity", "--config", cfg)
	if code != ExitInput || !strings.Contains(errs, cfg+":5:1: unknown key probe") {
		t.Errorf("unknown key: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "parity", "--config", "../../ledgercheck.yaml", "--port", filepath.Join(dir, "missing.sql"))
	if code != ExitInput || !strings.Contains(errs, "missing.sql: no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "allowlist", "check", bad)
	if code != ExitInput || !strings.Contains(errs, ":3:") {
		t.Errorf("allowlist check: exit %d, stderr %q", code, errs)
	}
	code, out, _ = runCLI(t, "allowlist", "check", "../../allowlist.yaml")
	if code != ExitOK || !strings.Contains(out, "valid") {
		t.Errorf("shipped allowlist check: exit %d, %q", code, out)
	}
}

// The shipped probes test the ledger's public contract only: the upstream-style pair
// (testdata/upstream, which has none of this project's internals and differs only in the
// dimension) passes parity with the repository's configuration and no allowlist.
func TestUpstreamPairPassesParity(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	code, out, errs := runCLI(t, "parity", "--config", "../../ledgercheck.yaml", "-q", "--no-allowlist",
		"--artifact", "../../testdata/upstream/decision_ledger_upstream.sql", "--port", "../../testdata/upstream/decision_ledger_upstream_1024.sql")
	if code == ExitEnv {
		t.Skipf("no Postgres: %s", errs)
	}
	if code != ExitOK || !regexp.MustCompile(`\d+ probes on the fixture, 0 return different rows`).MatchString(out) || !strings.Contains(out, "0 differences between") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
