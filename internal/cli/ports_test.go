package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// twoPorts writes a version 2 configuration with the shipped artifact, the shipped port and a
// 768-dimension copy of it (edited by edit), both with the shipped allowlist, and returns its
// path.
func twoPorts(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join("../..", p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	copyTo(t, dir, abs("migrations/ports/decision_ledger_1024.sql"), "decision_ledger_768.sql", func(s string) string {
		s = strings.Replace(s, "p_query_embedding       vector(1024) DEFAULT NULL,", "p_query_embedding       vector(768)  DEFAULT NULL,", 1)
		return edit(s)
	})
	repo, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(repo)
	for _, p := range []string{"migrations/decision_ledger.sql", "testdata/fixtures/first_cut.sql", "migrations/ports/decision_ledger_1024.sql", "allowlist.yaml", "testdata/fixtures/ledger_fixture.sql"} {
		// Copied beside the configuration: what it names must be inside its repository.
		copyTo(t, dir, abs(p), filepath.Base(p), func(s string) string { return s })
		cfg = strings.Replace(cfg, ": "+p+"\n", ": "+filepath.Base(p)+"\n", 1)
	}
	cfg = strings.Replace(cfg, "\n# What a scratch database holds", "  - file: decision_ledger_768.sql\n    dim: 768\n    allowlist: allowlist.yaml\n\n# What a scratch database holds", 1)
	path := filepath.Join(dir, "ledgercheck.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func statuses(rep *report.Report) map[string]report.Status {
	out := map[string]report.Status{}
	for _, ph := range rep.Phases {
		out[ph.Name] = ph.Status
	}
	return out
}

// A version 2 configuration with the shipped port and a 768-dimension copy of it passes check,
// each port reported under its own name; a drift in the second port alone fails its parity only.
func TestSeveralPortsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("installs three variants")
	}
	rep := sharedCheck(t, "--config", twoPorts(t, func(s string) string { return s }), "--times", "2")
	st := statuses(rep)
	for _, name := range []string{"lint production-1024", "lint decision_ledger_768", "parity production-1024", "parity decision_ledger_768",
		"probes decision_ledger_768", "allowlist decision_ledger_768", "rerun production-1024", "rerun decision_ledger_768", "rerun artifact"} {
		if st[name] != report.StatusPass {
			t.Errorf("phase %s: %q, want pass", name, st[name])
		}
	}
	if rep.Failed() {
		t.Fatalf("check fails: %v", errorRules(rep))
	}

	drifted := twoPorts(t, func(s string) string {
		return strings.Replace(s, "DEFAULT 0.50", "DEFAULT 0.75", 1)
	})
	// On the package's --dsn stand-in server: no cluster of its own (nor a cache entry for the
	// three dimensions) for one parity run.
	code, out, errs := runCLI(t, "parity", "--config", drifted, "-q", "--dsn", hostDSN(t, ""))
	if code == ExitEnv {
		scratchtest.Unavailable(t, errors.New(errs))
	}
	if code != ExitFindings || !regexp.MustCompile(`(?m)^parity decision_ledger_768 +fail`).MatchString(out) || !regexp.MustCompile(`(?m)^parity production-1024 +pass`).MatchString(out) ||
		!strings.Contains(out, "default of column public.agent_decision_ledger.importance differs") {
		t.Errorf("a drift in the second port: exit %d\n%s%s", code, out, errs)
	}
}

// The port flags act on the one configured port; with several, --port FILE checks FILE instead
// of them and the other port flags need it; --only NAME keeps one port.
func TestPortFlags(t *testing.T) {
	two := twoPorts(t, func(s string) string { return s })
	for _, tc := range []struct {
		args  []string
		ports string // name:dim:allowlist:file:dsn for each port (base names), or the error
	}{
		{[]string{"--config", two}, "production-1024:1024:allowlist.yaml:decision_ledger_1024.sql: decision_ledger_768:768:allowlist.yaml:decision_ledger_768.sql:"},
		{[]string{"--config", two, "--only", "decision_ledger_768"}, "decision_ledger_768:768:allowlist.yaml:decision_ledger_768.sql:"},
		{[]string{"--config", two, "--only", "nope"}, "--only nope: the configuration has no port of that name (its ports: production-1024, decision_ledger_768)"},
		{[]string{"--config", two, "--port", "x/mine.sql", "--port-dim", "512"}, "mine:512::mine.sql:"},
		{[]string{"--config", two, "--port-dim", "512"}, "--port-dim: the configuration has 2 ports (production-1024, decision_ledger_768); pass --port FILE"},
		{[]string{"--config", two, "--no-allowlist"}, "production-1024:1024::decision_ledger_1024.sql: decision_ledger_768:768::decision_ledger_768.sql:"},
		{[]string{"--config", two, "--port-dsn", "host=/x", "--port-dim", "768"}, "port:768:::host=/x"},
		{[]string{"--config", repoConfig, "--port", "x/mine.sql"}, "mine:1024:allowlist.yaml:mine.sql:"},
		{[]string{"--config", repoConfig, "--port-dim", "768", "--allowlist", "al.yaml"}, "production-1024:768:al.yaml:decision_ledger_1024.sql:"},
		{[]string{"--config", repoConfig, "--port-dsn", "host=/x"}, "production-1024:1024:allowlist.yaml::host=/x"},
		{[]string{"--config", repoConfig, "--port-dsn", "host=/x", "--port", "x/mine.sql"}, "mine:1024:allowlist.yaml:mine.sql:host=/x"},
		{[]string{"--config", repoConfig, "--port", "x/mine.sql", "--port-dim", "0"}, "--port-dim 0 is out of range: want 1 to 16000"},
	} {
		g := &globals{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, quiet: true}
		cmd, f := buildCheckCmd(g)
		cmd.SetErr(io.Discard)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.loadConfig(cmd, g)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = describePorts(cfg)
		}
		if got != tc.ports && !(err != nil && strings.HasPrefix(got, tc.ports)) {
			t.Errorf("%v: %q, want %q", tc.args[2:], got, tc.ports)
		}
	}
}

func describePorts(cfg *config.Config) string {
	var out []string
	base := func(p string) string {
		if p == "" {
			return ""
		}
		return filepath.Base(p)
	}
	for _, p := range cfg.Ports {
		out = append(out, strings.Join([]string{p.Name, strconv.Itoa(p.Dim), base(p.Allowlist), base(p.File), p.DSN}, ":"))
	}
	return strings.Join(out, " ")
}
