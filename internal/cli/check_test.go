package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// The repository's configuration, from this package's directory.
const repoConfig = "../../ledgercheck.yaml"

func TestCheckInputErrors(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "ledgercheck.yaml")
	os.WriteFile(badConfig, []byte("version: 2\n# the artifact\nartifact:\n    file: a.sql\n    dimm: 3\n"), 0o644)
	badAllow := filepath.Join(dir, "allow.yaml")
	os.WriteFile(badAllow, []byte("version: 2\nentries:\n  - kind: table\n    object: public.t\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: \"\"\n"), 0o644)
	badStats := filepath.Join(dir, "table_stats.csv")
	os.WriteFile(badStats, []byte("schema,table,rows,bytes\npublic,thoughts,2100000,3650722201\npublic,agent_memories,many,8192\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"check", "--config", badConfig}, regexp.QuoteMeta(badConfig) + `:5:`},
		{[]string{"check", "--config", repoConfig, "--table-stats", badStats}, regexp.QuoteMeta(badStats) + `: line 3: want schema and table \(text\), rows and bytes`},
		{[]string{"check", "--config", repoConfig, "--allowlist", badAllow}, regexp.QuoteMeta(badAllow) + `:3:`},
		{[]string{"check", "--config", repoConfig, "--format", "xml"}, `"xml" is not a format; want one of text, json, sarif, github, html`},
		{[]string{"check", "--config", repoConfig, "--port-dim", "0"}, `--port-dim 0`},
		{[]string{"check", "--config", repoConfig, "--artifact", filepath.Join(dir, "missing.sql")}, `missing.sql: no such file`},
		{[]string{"check", "--config", filepath.Join(dir, "none.yaml")}, `none.yaml`},
		{[]string{"check", "--config", repoConfig, "--color", "sometimes"}, `--color "sometimes"`},
		{[]string{"check", "extra-arg"}, `^ledgercheck: check: it takes no argument, given "extra-arg"; usage: ledgercheck check \[flags\]`},
		{[]string{"check", "--config", repoConfig, "--pg", "16"}, `^ledgercheck: --pg 16: ledgercheck runs PostgreSQL 15 or 17\n$`},
		{[]string{"lint", "--pg", "14", "../../migrations/decision_ledger.sql"}, `^ledgercheck: --pg 14: ledgercheck runs PostgreSQL 15 or 17\n$`},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != ExitInput || out != "" || !regexp.MustCompile(tc.want).MatchString(errs) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line matching %q", tc.args, code, out, errs, tc.want)
		}
	}
}

func TestUseColor(t *testing.T) {
	var b bytes.Buffer
	if useColor("auto", &b) {
		t.Error("a buffer is not a terminal")
	}
	if !useColor("always", &b) || useColor("never", os.Stdout) {
		t.Error("--color always/never not obeyed")
	}
	t.Setenv("NO_COLOR", "1")
	if useColor("auto", os.Stdout) {
		t.Error("NO_COLOR set, still colored")
	}
}

// checkReport runs the gate in-process with the given check flags (a cluster of its own) and
// returns its report.
func checkReport(t *testing.T, args ...string) *report.Report {
	t.Helper()
	scratchtest.NeedPostgres(t)
	return runCheck(t, nil, args...)
}

// sharedCheck runs check with args on the package's scratch server and returns its report.
func sharedCheck(t *testing.T, args ...string) *report.Report {
	t.Helper()
	return runCheck(t, scratchtest.Server(t), args...)
}

// runCheck runs check in-process with args, on srv when it is not nil, and returns its report.
func runCheck(t *testing.T, srv *scratch.Server, args ...string) *report.Report {
	t.Helper()
	g := &globals{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, quiet: true}
	cmd, f := buildCheckCmd(g)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	req, err := f.request(cmd, g)
	if err != nil {
		t.Fatal(err)
	}
	req.Server = srv
	res, err := gate.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Report
}

// allFormats renders rep in every format, as check would print it.
func allFormats(t *testing.T, rep *report.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, format := range []string{"text", "json", "sarif", "github", "html"} {
		var b bytes.Buffer
		o := outputFlags{format: formatFlag{value: format}, color: "never", githubSummaryEnv: "LEDGERCHECK_TEST_NO_SUMMARY"}
		if err := o.write(&b, format, rep, true); err != nil {
			t.Fatal(err)
		}
		out[format] = b.String()
	}
	return out
}

// ruleIDs returns the rule of every error finding, sorted.
func errorRules(rep *report.Report) []string {
	var ids []string
	for _, f := range rep.Findings() {
		if f.Severity == finding.SevError {
			ids = append(ids, f.Rule)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func copyTo(t *testing.T, dir, src, name string, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckScenarios runs the gate on four broken variants of the shipped set, and checks the
// exit status and that each finding shows in every format (`make test-pg17`: on PostgreSQL 17).
// The scenarios share the package's server (and its templates): what they assert is the
// verdict and its rendering, which no cluster of their own would change; TestCheckShipped runs
// check on a cluster of its own, from the cache, as the command does.
func TestCheckScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the shipped set four times")
	}
	dir := t.TempDir()
	port := "../../migrations/ports/decision_ledger_1024.sql"
	artifact := "../../migrations/decision_ledger.sql"
	drifted := copyTo(t, dir, port, "drifted_1024.sql", func(s string) string {
		return strings.Replace(s, "importance       numeric(3,2) NOT NULL DEFAULT 0.50", "importance       numeric(3,2) NOT NULL DEFAULT 0.75", 1)
	})
	badLint := copyTo(t, dir, artifact, "bad_lint.sql", func(s string) string {
		i := strings.LastIndex(s, "NOTIFY pgrst")
		return s[:i] + "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS ledger_flag int;\n" + s[i:]
	})
	anon := copyTo(t, dir, port, "anon_1024.sql", func(s string) string {
		i := strings.LastIndex(s, "NOTIFY pgrst")
		return s[:i] + "GRANT SELECT ON public.agent_decision_ledger TO anon;\n" + s[i:]
	})
	stale := copyTo(t, dir, "../../allowlist.yaml", "allowlist.yaml", func(s string) string {
		return s + "  - kind: table\n    object: public.no_such_table\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: an entry that matches nothing\n"
	})
	for _, tc := range []struct {
		name  string
		args  []string
		fails bool
		rule  string // a rule whose finding must be in every format
		text  string // text of that finding
	}{
		{"drifted port", []string{"--port", drifted}, true, "unreviewed-difference", "importance"},
		{"failing lint", []string{"--artifact", badLint}, true, "modifies-existing-object", "public.thoughts"},
		{"stale allowlist entry", []string{"--allowlist", stale}, true, "stale-allowlist-entry", "public.no_such_table"},
		{"grant to anon in the port", []string{"--port", anon}, true, "unreviewed-difference", "acl:anon of table public.agent_decision_ledger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := sharedCheck(t, append([]string{"--config", repoConfig, "--times", "1"}, tc.args...)...)
			if rep.Failed() != tc.fails {
				t.Fatalf("failed %v, want %v; errors: %v", rep.Failed(), tc.fails, errorRules(rep))
			}
			if !slices.Contains(errorRules(rep), tc.rule) {
				t.Fatalf("no %s finding; errors: %v", tc.rule, errorRules(rep))
			}
			for format, out := range allFormats(t, rep) {
				if !strings.Contains(out, tc.rule) || !strings.Contains(out, tc.text) {
					t.Errorf("%s output lacks the %s finding about %q", format, tc.rule, tc.text)
				}
			}
		})
	}
}

// TestCheckShipped runs the gate on the shipped set: it must pass with no error in any phase
// (lint, lint of the installs, parity, probes, allowlist, reruns and the artifact's upgrade from
// its first cut), and every phase must have run.
func TestCheckShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	rep := checkReport(t, "--config", repoConfig)
	var known []string // "phase rule object" of errors the shipped set is known to have: none
	var got []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Severity == finding.SevError {
				got = append(got, ph.Name+" "+f.Rule+" "+f.Object)
			}
		}
	}
	slices.Sort(got)
	slices.Sort(known)
	if !slices.Equal(got, known) {
		t.Errorf("the shipped set's errors changed.\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(known, "\n      "))
	}
	outs := allFormats(t, rep)
	var doc struct {
		SchemaVersion int    `json:"schema_version"`
		Status        string `json:"status"`
		Phases        []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(outs["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range doc.Phases {
		names = append(names, p.Name)
	}
	want := []string{"lint artifact", "lint production-1024", "parity production-1024", "probes production-1024", "allowlist production-1024", "lint installed artifact", "lint installed production-1024", "audit artifact", "audit production-1024", "bodies artifact", "bodies production-1024", "locks artifact", "locks production-1024", "rerun artifact", "rerun production-1024"}
	if !slices.Equal(names, want) || doc.SchemaVersion != report.SchemaVersion {
		t.Errorf("json phases %v (schema %d), want %v", names, doc.SchemaVersion, want)
	}
	for _, p := range doc.Phases {
		if p.Status != "pass" {
			t.Errorf("phase %s: %s, want pass", p.Name, p.Status)
		}
	}
	if doc.Status != "pass" {
		t.Errorf("status %s, want pass", doc.Status)
	}
	checkServers(t, rep, outs, "embedded")
}

// checkServers checks that every format of rep says which server the artifact and the port ran
// on: PostgreSQL of the version the tests run on, of the kind given.
// shippedPort is the name of the port ledgercheck.yaml ships.
const shippedPort = "production-1024"

func checkServers(t *testing.T, rep *report.Report, outs map[string]string, kind string) {
	t.Helper()
	major := scratchtest.Major(t)
	if len(rep.Servers) != 1 || !strings.HasPrefix(rep.Servers[0].Version, fmt.Sprint(major)+".") ||
		rep.Servers[0].Kind != kind || !slices.Equal(rep.Servers[0].Ran, []string{"artifact", shippedPort}) {
		t.Fatalf("servers %+v, want PostgreSQL %d (%s) for artifact and %s", rep.Servers, major, kind, shippedPort)
	}
	line := "server: PostgreSQL " + rep.Servers[0].Version + " (" + kind + ") for artifact, " + shippedPort
	for format, out := range outs {
		want := line
		if format == "json" || format == "sarif" {
			want = `"version": "` + rep.Servers[0].Version + `"`
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s output does not say %q", format, want)
		}
	}
}

// TestCheckShippedServerMode: on a --dsn server (here a plain cluster whose superuser is
// postgres) the shipped set passes as in the embedded cluster: user SQL runs as a role of the
// run's own there, which snapshots show as postgres, so owners and the allowlist's pinned values
// are the same; and every database and role the run created is gone afterwards.
func TestCheckShippedServerMode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	dsn := hostDSN(t, "")
	rep := checkReport(t, "--config", repoConfig, "--dsn", dsn)
	checkServers(t, rep, allFormats(t, rep), "dsn")
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			if f.Severity == finding.SevError {
				t.Errorf("%s: %s", ph.Name, f)
			}
		}
	}
	if left := scratchDatabases(t, dsn); len(left) != 0 {
		t.Errorf("databases left on the server: %v", left)
	}
}
