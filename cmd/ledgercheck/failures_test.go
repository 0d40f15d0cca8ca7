package main

// Issue 22, cause 6: what a migration does to its own session, role, databases or server while
// its SQL runs is a finding at the statement (exit 1) with every report written, never an
// environment error (exit 3); exit 3 stays for what no user SQL caused
// (TestServerDeathIsAnEnvironmentError in attack_test.go: the server killed mid-install).

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// selfInflicted is one way a migration breaks what the run needs: the statement appended to the
// shipped port, and what the install-failed finding at it must say.
type selfInflicted struct {
	name, stmt, want string
	// differs: --dsn behaves differently (another role, another authentication), so the case
	// also runs there.
	differs bool
}

var selfInflictedCases = []selfInflicted{
	// A statement that sleeps past the limit: the limit is of the install's time, and a busy loop
	// (internal/scratch's TestTimeLimitsStopRunawayMigrations) would burn 2 s of CPU for it.
	{name: "install-timeout", stmt: `DO $$ BEGIN PERFORM pg_catalog.pg_sleep(60); END $$;`, want: "install time limit of 2s", differs: true},
	{name: "own-password", stmt: `ALTER ROLE CURRENT_USER PASSWORD 'chosen by the migration';`, want: "changed the role it runs as (ALTER ROLE: its password", differs: true},
	{name: "database-connection-limit", stmt: `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I CONNECTION LIMIT 0', current_database()); END $$;`, want: "changed its own database"},
	{name: "role-connection-limit", stmt: `ALTER ROLE CURRENT_USER CONNECTION LIMIT 0;`, want: "permission denied to alter role"},
	{name: "allow-connections-elsewhere", stmt: `DO $$ DECLARE d text; BEGIN
  FOR d IN SELECT datname FROM pg_database WHERE datname LIKE 'ledgercheck\_%' AND datname <> current_database() AND pg_get_userbyid(datdba) = current_user LOOP
    EXECUTE format('ALTER DATABASE %I ALLOW_CONNECTIONS false', d);
  END LOOP; END $$;`, want: "changed database ledgercheck_", differs: true},
	{name: "revoke-connect", stmt: `DO $$ BEGIN EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC, %I', current_database(), current_user); END $$;`, want: "changed its own database"},
	{name: "role-preload", stmt: `ALTER ROLE CURRENT_USER SET local_preload_libraries = 'nonexistent';`, want: "changed a setting of the role it runs as", differs: true},
	{name: "database-preload", stmt: `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET local_preload_libraries = %L', current_database(), 'nonexistent'); END $$;`, want: "changed a setting of the role it runs as or of one of the run's databases"},
	{name: "is-template", stmt: `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database()); END $$;`, want: "changed its own database", differs: true},
	{name: "role-setting", stmt: `ALTER ROLE CURRENT_USER SET role = 'anon';`, want: "changed a setting of the role it runs as"},
	{name: "database-read-only", stmt: `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$;`, want: "changed a setting of the role it runs as or of one of the run's databases"},
	{name: "session-preload", stmt: `ALTER ROLE CURRENT_USER SET session_preload_libraries = 'nonexistent';`, want: `permission denied to set parameter "session_preload_libraries"`},
	{name: "raise-disk-full", stmt: `DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$;`, want: "(SQLSTATE 53100)"},
	{name: "raise-data-corrupted", stmt: `DO $$ BEGIN RAISE EXCEPTION 'invalid page in block 0' USING ERRCODE = 'XX001'; END $$;`, want: "(SQLSTATE XX001)"},
}

// TestMigrationBreakingItsEnvironmentIsAFinding: every case, each appended to the shipped port
// as a port of its own, checked in one run beside the shipped artifact: each is an install-failed
// finding at its line in the text, json and sarif reports, the run exits 1, and no finding falls
// on another file than the one that broke its environment (the artifact's included), whatever
// the others did at the same time.
func TestMigrationBreakingItsEnvironmentIsAFinding(t *testing.T) {
	scratchtest.NeedPostgres(t)
	checkSelfInflicted(t, selfInflictedCases, nil)
}

// TestMigrationBreakingItsEnvironmentIsAFindingOnDSN: the cases where a --dsn server differs (a
// role of the run's own, a server that trusts its socket, so a changed password logs in still).
func TestMigrationBreakingItsEnvironmentIsAFindingOnDSN(t *testing.T) {
	srv := scratchtest.SharedDSNServer(t)
	var cases []selfInflicted
	for _, c := range selfInflictedCases {
		if c.differs {
			cases = append(cases, c)
		}
	}
	checkSelfInflicted(t, cases, []string{"--dsn", srv.DSN})
}

// checkSelfInflicted checks cases in one run, each a port of its own: the shipped port with the
// case's statement appended.
func checkSelfInflicted(t *testing.T, cases []selfInflicted, extra []string) {
	port, err := os.ReadFile("../../migrations/ports/decision_ledger_1024.sql")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(strings.TrimRight(string(port), "\n"), "\n") + 2
	dir := t.TempDir()
	files := map[string]selfInflicted{} // file -> its case
	var ports []configPort
	for _, c := range cases {
		file := filepath.Join(dir, c.name+".sql")
		if err := os.WriteFile(file, []byte(strings.TrimRight(string(port), "\n")+"\n"+c.stmt+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files[file] = c
		ports = append(ports, configPort{Name: c.name, File: file, Dim: 1024})
	}
	jsonPath, sarifPath := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.sarif")
	args := append([]string{"-q", "--config", shippedConfigWithPorts(t, dir, ports), "--allow-outside-repo", "--install-timeout", "2s",
		"--output", "json=" + jsonPath, "--output", "sarif=" + sarifPath}, extra...)
	code, out, errs := runCheck(t, nil, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q; stdout:\n%s", code, errs, installLines(out))
	}
	for file, c := range files {
		if at := fmt.Sprintf("%s:%d:", file, line); !hasLine(out, at, c.want) {
			t.Errorf("%s: the text report has no finding at %s saying %q; stdout:\n%s", c.name, at, c.want, installLines(out))
		}
	}

	var rep struct {
		Phases []struct {
			Name     string `json:"name"`
			Findings []struct {
				Rule     string `json:"rule"`
				Message  string `json:"message"`
				Position struct {
					File string `json:"file"`
					Line int    `json:"line"`
				} `json:"position"`
			} `json:"findings"`
		} `json:"phases"`
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("no json report: %v", err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			c, ok := files[f.Position.File]
			switch {
			case !ok:
				t.Errorf("%s: a finding on another file than one that broke its environment: %s:%d: %s [%s]", ph.Name, f.Position.File, f.Position.Line, f.Message, f.Rule)
			case !strings.HasSuffix(ph.Name, " "+c.name):
				t.Errorf("%s: a finding on %s's file in another variant's phase: %s [%s]", ph.Name, c.name, f.Message, f.Rule)
			case f.Rule == "install-failed" && f.Position.Line == line && strings.Contains(f.Message, c.want):
				found[c.name] = true
			}
		}
	}
	var sarif reporttest.SARIF
	data, err = os.ReadFile(sarifPath)
	if err != nil {
		t.Fatalf("no sarif report: %v", err)
	}
	if err := json.Unmarshal(data, &sarif); err != nil {
		t.Fatal(err)
	}
	inSarif := map[string]bool{}
	for _, r := range sarif.Runs[0].Results {
		if len(r.Locations) == 0 {
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		name := strings.TrimSuffix(path.Base(loc.ArtifactLocation.URI), ".sql")
		if c, ok := files[filepath.Join(dir, name+".sql")]; ok && r.RuleID == "install-failed" && loc.Region.StartLine == line && strings.Contains(r.Message.Text, c.want) {
			inSarif[c.name] = true
		}
	}
	for _, c := range cases {
		if !found[c.name] {
			t.Errorf("%s: the json report has no install-failed finding at line %d of its file saying %q", c.name, line, c.want)
		}
		if !inSarif[c.name] {
			t.Errorf("%s: the sarif report has no install-failed result at line %d of its file saying %q", c.name, line, c.want)
		}
	}
}

// hasLine reports whether a line of out starts with prefix and holds text.
func hasLine(out, prefix, text string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// installLines returns the lines of a text report about installs, for a failure message.
func installLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "install") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
