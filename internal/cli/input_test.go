package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/input/inputtest"
)

// TestNonRegularInputs gives every command that reads a file a FIFO, /dev/zero or a directory
// wherever it takes a file: on the command line, and as each file the configuration names.
// Each is one line, exit 2, before anything is started: ledgercheck refuses the file before it
// opens it (a FIFO would block forever, /dev/zero would stream until memory runs out).
func TestNonRegularInputs(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	clean := writeSQL(t, "clean.sql", cleanSQL)
	// Were a command to get past its files, it would fail to connect here (exit 3) rather than
	// start a cluster.
	noServer := []string{"-q", "--dsn", "postgres://ledgercheck@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1"}
	config := func(key, bad string) string { return nonRegularConfig(t, repo, key, bad) }
	for _, k := range nonRegularKinds {
		for i, tc := range []struct {
			noun string
			args func(bad string) []string
		}{
			{"migration", func(bad string) []string { return []string{"lint", "-q", bad} }},
			{"migration", func(bad string) []string { return []string{"lint", clean, bad} }},
			{"configuration", func(bad string) []string { return []string{"lint", "-q", "--config", bad, clean} }},
			{"configuration", func(bad string) []string { return append([]string{"parity", "--config", bad}, noServer...) }},
			{"configuration", func(bad string) []string { return append([]string{"check", "--config", bad}, noServer...) }},
			{"configuration", func(bad string) []string {
				return append([]string{"allowlist", "suggest", "--config", bad}, noServer...)
			}},
			{"allowlist", func(bad string) []string { return []string{"allowlist", "check", "-q", bad} }},
			{"allowlist", func(bad string) []string {
				return append([]string{"check", "--config", repoConfig, "--allowlist", bad}, noServer...)
			}},
			{"allowlist", func(bad string) []string {
				return append([]string{"parity", "--config", config("allowlist", bad)}, noServer...)
			}},
			{"migration", func(bad string) []string {
				return append([]string{"parity", "--config", repoConfig, "--artifact", bad}, noServer...)
			}},
			{"migration", func(bad string) []string {
				return append([]string{"check", "--config", repoConfig, "--port", bad}, noServer...)
			}},
			{"migration", func(bad string) []string {
				return append([]string{"check", "--config", config("previous", bad)}, noServer...)
			}},
			{"migration", func(bad string) []string {
				return append([]string{"check", "--config", config("prerequisite", bad)}, noServer...)
			}},
			{"fixture", func(bad string) []string {
				return append([]string{"check", "--config", config("fixture", bad)}, noServer...)
			}},
			{"fixture", func(bad string) []string {
				return append([]string{"check", "--config", repoConfig, "--fixture", bad}, noServer...)
			}},
			{"table statistics", func(bad string) []string {
				return append([]string{"check", "--config", repoConfig, "--table-stats", bad}, noServer...)
			}},
			{"migration", func(bad string) []string { return append([]string{"rerun", bad, "--no-fixture"}, noServer...) }},
			{"migration", func(bad string) []string {
				return append([]string{"rerun", clean, "--from", bad, "--no-fixture"}, noServer...)
			}},
			{"fixture", func(bad string) []string { return append([]string{"rerun", clean, "--fixture", bad}, noServer...) }},
			{"migration", func(bad string) []string { return append([]string{"snapshot", "--install", bad}, noServer...) }},
		} {
			bad, opened := k.path(t)
			// The configurations name files in other directories: this test is about what the
			// files are, not where (TestInputsStayInTheRepository).
			args := append(tc.args(bad), "--allow-outside-repo")
			t.Run(fmt.Sprintf("%s/%d %s", k.name, i, args[0]), func(t *testing.T) {
				checkNonRegularRefused(t, k, tc.noun, bad, opened, args)
			})
		}
	}
}

// nonRegularKind is a kind of file that is not a regular one: path makes one (and says whether
// it was opened, for a FIFO), what is how the message names it.
type nonRegularKind struct {
	name string
	path func(t *testing.T) (string, func() bool)
	what string // as the message names it
}

// nonRegularKinds are the files TestNonRegularInputs gives wherever a command takes a file.
var nonRegularKinds = []nonRegularKind{
	{"fifo", func(t *testing.T) (string, func() bool) { return inputtest.Fifo(t, "input.sql") }, `is a named pipe \(FIFO\), not an? %s file; ledgercheck reads only regular files`},
	{"device", func(*testing.T) (string, func() bool) { return "/dev/zero", func() bool { return false } }, `is a character device, not an? %s file; ledgercheck reads only regular files`},
	{"directory", func(t *testing.T) (string, func() bool) { return t.TempDir(), func() bool { return false } }, `is a directory, not an? %s file$`},
}

// nonRegularConfig returns a configuration in which the file at key (previous, prerequisite, allowlist
// or fixture) is bad.
func nonRegularConfig(t *testing.T, repo, key, bad string) string {
	t.Helper()
	files := map[string]string{"allowlist": repo + "/allowlist.yaml", "fixture": repo + "/testdata/fixtures/ledger_fixture.sql"}
	files[key] = bad
	previous := ""
	if files["previous"] != "" {
		previous = ", previous: " + files["previous"]
	}
	return writeSQL(t, key+".yaml", fmt.Sprintf(`version: 2
artifact: {file: %[1]s/migrations/decision_ledger.sql, dim: 1536%[2]s}
ports:
  - {file: %[1]s/migrations/ports/decision_ledger_1024.sql, dim: 1024, allowlist: %[4]s}
prerequisites: {files: [%[3]s]}
fixture: %[5]s
`, repo, previous, files["prerequisite"], files["allowlist"], files["fixture"]))
}

// checkNonRegularRefused runs args, in which bad (of kind k) stands where a noun file is taken,
// and fails unless it exits 2 with one line that names bad and what it is, without opening it.
func checkNonRegularRefused(t *testing.T, k nonRegularKind, noun, bad string, opened func() bool, args []string) {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	want := regexp.QuoteMeta(bad) + ": " + fmt.Sprintf(k.what, noun)
	if k.name == "directory" && args[0] == "lint" && noun == "migration" {
		want = regexp.QuoteMeta(bad) + `: the directory holds no \.sql file$` // lint takes directories
	}
	if code != ExitInput || out != "" || strings.Count(errs, "\n") != 1 || !regexp.MustCompile(want).MatchString(strings.TrimSuffix(errs, "\n")) {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line matching %s", args, code, firstLines(out, 5), errs, want)
	}
	if opened() {
		t.Errorf("%v opened the FIFO; it must refuse it before opening it", args)
	}
}
