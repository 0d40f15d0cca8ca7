package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
)

// expectInputError runs the CLI and wants exit 2, nothing on stdout and exactly the one line
// want on stderr.
func expectInputError(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != ExitInput || out != "" || errs != "ledgercheck: "+want+"\n" {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errs, "ledgercheck: "+want)
	}
}

func TestFlagSuggestions(t *testing.T) {
	expectInputError(t, "unknown flag --formt (did you mean --format?)", "check", "--formt", "json")
	expectInputError(t, "unknown flag --quite (did you mean --quiet?)", "lint", "--quite", "x.sql") // inherited
	expectInputError(t, "unknown flag --outptu (did you mean --output?)", "parity", "--outptu", "sarif=x")
	expectInputError(t, "unknown flag: --zzzzzz", "lint", "--zzzzzz")
	expectInputError(t, `unknown command "lnt" for "ledgercheck" (did you mean lint?)`, "lnt")
	expectInputError(t, `unknown command "chek" for "ledgercheck allowlist" (did you mean check?)`, "allowlist", "chek", "x.yaml")
}

func TestFlagValueErrors(t *testing.T) {
	expectInputError(t, `invalid value "abc" for --port-dim: want a whole number of dimensions between 1 and 16000`, "check", "--port-dim", "abc")
	expectInputError(t, `invalid value "abc" for --dim: want a whole number of dimensions between 1 and 16000`, "lint", "--dim", "abc", "x.sql")
	expectInputError(t, `invalid value "x" for --times: want a whole number`, "check", "--times", "x")
	expectInputError(t, `invalid value "x" for --pg: want a PostgreSQL major version, 15 or 17`, "check", "--pg", "x")
	expectInputError(t, `invalid value "3x" for --older-than: want a duration such as 90s, 2m or 1h30m`, "cleanup", "--older-than", "3x")
	expectInputError(t, `invalid value "xml" for --format: "xml" is not a format; want one of text, json, sarif, github, html`, "lint", "--format", "xml", "x.sql")
	expectInputError(t, `invalid value "maybe" for --quiet: want true or false`, "lint", "--quiet=maybe", "x.sql")
	for _, args := range [][]string{{"check", "--port-dim", "abc"}, {"cleanup", "--older-than", "3x"}} {
		if _, _, errs := runCLI(t, args...); strings.Contains(errs, "strconv") || strings.Contains(errs, "time:") {
			t.Errorf("%v: %q speaks Go's words", args, errs)
		}
	}
}

func TestRuleIDSuggestions(t *testing.T) {
	expectInputError(t, `unknown rule "not-idempotnet": did you mean not-idempotent?`, "explain", "not-idempotnet")
	cfg := writeSQL(t, "c.yaml", "version: 2\nlint:\n  severity:\n    destructive-statment: off\n")
	code, _, errs := runCLI(t, "lint", "--config", cfg, writeSQL(t, "a.sql", cleanSQL))
	if code != ExitInput || !strings.Contains(errs, `c.yaml:2: severity for unknown rule "destructive-statment": did you mean destructive-statement?`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// badLintSQL is a file lint reports (exit 1).
const badLintSQL = cleanSQL + "ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\nNOTIFY pgrst, 'reload schema';\n"

// TestOutputDashIsStdout: --output FORMAT=- writes FORMAT on stdout (no file named -), beside
// other --output files; with a --format of another format it is refused.
func TestOutputDashIsStdout(t *testing.T) {
	p := writeSQL(t, "m.sql", badLintSQL)
	dir := t.TempDir()
	t.Chdir(dir)
	js := filepath.Join(dir, "a.json")
	code, out, errs := runCLI(t, "lint", "-q", "--output", "sarif=-", "--output", "json="+js, p)
	var sarif struct {
		Version string `json:"version"`
	}
	if code != ExitFindings || json.Unmarshal([]byte(out), &sarif) != nil || sarif.Version != "2.1.0" {
		t.Fatalf("exit %d, stderr %q, stdout not SARIF: %.200q", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("a file named - was written")
	}
	if _, err := os.Stat(js); err != nil {
		t.Errorf("the json --output: %v", err)
	}
	if code, _, _ := runCLI(t, "lint", "-q", "--format", "sarif", "--output", "sarif=-", p); code != ExitFindings {
		t.Errorf("--format sarif --output sarif=-: exit %d, want 1", code)
	}
	expectInputError(t, "--output sarif=-: stdout is --format json's; drop one of them", "lint", "--format", "json", "--output", "sarif=-", p)
	expectInputError(t, `invalid value "json=-" for --output: stdout is already the output of sarif`, "lint", "--output", "sarif=-", "--output", "json=-", p)
}

// TestOutputFilesSurviveAClosedStdout: a reader that has gone (`| head -1`) costs no --output
// file: the files are written before stdout, and the broken pipe on stdout is no error.
func TestOutputFilesSurviveAClosedStdout(t *testing.T) {
	p := writeSQL(t, "m.sql", badLintSQL)
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first byte: every write to w is EPIPE
	defer w.Close()
	var errb bytes.Buffer
	files := []string{filepath.Join(dir, "a.sarif"), filepath.Join(dir, "a.html"), filepath.Join(dir, "a.json")}
	code := Run(context.Background(), []string{"lint", "-q", "--format", "text", "--output", "sarif=" + files[0], "--output", "html=" + files[1], "--output", "json=" + files[2], p}, strings.NewReader(""), w, &errb)
	if code != ExitFindings || errb.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 1 and nothing on stderr", code, errb.String())
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestMissingAllowlistHintNamesThePort: with several ports, the command the missing-allowlist
// error suggests names the port (--only), and runs: it gets past the configuration to the
// server (here an unreachable one, exit 3) instead of refusing the ports (exit 2).
func TestMissingAllowlistHintNamesThePort(t *testing.T) {
	cfg := twoPorts(t, func(s string) string { return s })
	src, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "dim: 768\n    allowlist: allowlist.yaml", "dim: 768\n    allowlist: allowlist_768.yaml", 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(filepath.Dir(cfg), "allowlist_768.yaml")
	code, _, errs := runCLI(t, "parity", "-q", "--config", cfg)
	want := "ledgercheck allowlist suggest --write --config " + cfg + " --only decision_ledger_768 --allowlist " + missing
	if code != ExitInput || !strings.Contains(errs, "`"+want+"`") {
		t.Fatalf("exit %d, stderr %q; want exit 2 and the command %q", code, errs, want)
	}
	args := append(strings.Fields(strings.TrimPrefix(want, "ledgercheck ")), "-q", "--dsn", "postgres:///none?host=/nonexistent&connect_timeout=1")
	if code, _, errs := runCLI(t, args...); code != ExitEnv {
		t.Errorf("%v: exit %d, stderr %q; want 3 (the server), past the configuration", args, code, errs)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("%s was written without a comparison", missing)
	}
}

// TestConfigFoundAboveTheWorkingDirectory: run from a subdirectory, every command reads the
// repository's ledgercheck.yaml (the nearest one up to the directory holding .git), its paths
// relative to its own directory; with none, check says so and suggests init.
func TestConfigFoundAboveTheWorkingDirectory(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{".git", "migrations/ports"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	noNotify := strings.Replace(cleanSQL, "NOTIFY pgrst, 'reload schema';\n", "", 1)
	write(t, filepath.Join(repo, "migrations", "sidecar.sql"), noNotify)
	t.Chdir(filepath.Join(repo, "migrations", "ports"))

	// No configuration: lint applies the built-in policy, check suggests init.
	if code, out, _ := runCLI(t, "lint", "-q", "../sidecar.sql"); code != ExitFindings || !strings.Contains(out, "[missing-notify-reload]") {
		t.Errorf("lint without a configuration: exit %d, %q", code, out)
	}
	code, _, errs := runCLI(t, "check", "-q")
	if code != ExitInput || !strings.Contains(errs, "no ledgercheck.yaml in the working directory or above it up to the repository root ("+repo+")") || !strings.Contains(errs, "`ledgercheck init --artifact FILE --dim N`") {
		t.Errorf("check without a configuration: exit %d, stderr %q", code, errs)
	}

	write(t, filepath.Join(repo, "ledgercheck.yaml"), "version: 2\nartifact:\n  file: migrations/sidecar.sql\n  dim: 1536\nlint:\n  severity:\n    missing-notify-reload: off\n")
	if code, out, errs := runCLI(t, "lint", "-q", "../sidecar.sql"); code != ExitOK {
		t.Errorf("lint from migrations/ports: exit %d, %q %q; want the repository's lint policy", code, out, errs)
	}
	// The artifact's path is the configuration's (migrations/sidecar.sql from the root): the
	// file is read, and the run gets as far as the (unreachable) server.
	code, _, errs = runCLI(t, "check", "-q", "--dsn", "postgres:///none?host=/nonexistent&connect_timeout=1")
	if code != ExitEnv {
		t.Errorf("check from migrations/ports: exit %d, stderr %q; want 3 (the server), the artifact read", code, errs)
	}
	// A configuration error names the file as found from here.
	write(t, filepath.Join(repo, "ledgercheck.yaml"), "version: 2\nartifact:\n  file: migrations/sidecar.sql\n  dimm: 1536\n")
	expectInputError(t, "../../ledgercheck.yaml:4:3: unknown key dimm (did you mean dim?)", "check", "-q")
}

// TestLintDirectoriesAndPatterns: lint takes a directory (every .sql file under it, sorted,
// hidden directories skipped) and quoted patterns (** included), as squawk does; a directory or
// pattern that names no file is an error.
func TestLintDirectoriesAndPatterns(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"m/b.sql", "m/a.sql", "m/ports/c.sql", "m/.hidden/h.sql", "m/notes.txt", "other/d.SQL", "empty/x.txt"} {
		write(t, f, badLintSQL)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"m"}, []string{"m/a.sql", "m/b.sql", "m/ports/c.sql"}},
		{[]string{"m/*.sql"}, []string{"m/a.sql", "m/b.sql"}},
		{[]string{"m/**/*.sql"}, []string{"m/a.sql", "m/b.sql", "m/ports/c.sql"}},
		{[]string{"**/c.sql", "m/b.sql", "m"}, []string{"m/ports/c.sql", "m/b.sql", "m/a.sql"}},
		{[]string{"other"}, []string{"other/d.SQL"}},
		{[]string{"m/[ab].sql", "m/notes.txt"}, []string{"m/a.sql", "m/b.sql", "m/notes.txt"}},
	} {
		got, err := lintFiles(tc.args)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("lintFiles(%v) = %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
	expectInputError(t, "empty: the directory holds no .sql file", "lint", "empty")
	expectInputError(t, "m/*.psql: the pattern matches no file", "lint", "m/*.psql")
	expectInputError(t, "m/[.sql: no such file", "lint", "m/[.sql") // not a pattern: a missing file
	// Through the command: every file's findings, in order.
	code, out, errs := runCLI(t, "lint", "-q", "m")
	var files []string
	for _, line := range findingLines(out) {
		if f, _, ok := strings.Cut(line, ":"); ok && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if code != ExitFindings || !slices.Equal(files, []string{"m/a.sql", "m/b.sql", "m/ports/c.sql"}) {
		t.Errorf("lint m: exit %d, files %v, stderr %q", code, files, errs)
	}
}

// TestAllowlistCheckListsEveryInvalidEntry: one run of allowlist check names every TODO reason
// and every invalid entry, each at its line, not the first alone.
func TestAllowlistCheckListsEveryInvalidEntry(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 2\nentries:\n")
	entry := func(object, extra, reason string) {
		fmt.Fprintf(&b, "  - kind: column\n    object: %s\n    attr: type\n    artifact: int\n    port: bigint\n%s    reason: %q\n", object, extra, reason)
	}
	for i := range 19 {
		entry(fmt.Sprintf("public.t.c%d", i), "", "TODO")
	}
	entry("public.t.ok", "", "reviewed: the port widens it")
	entry("public.t.ok", "", "reviewed twice")                                            // a duplicate
	entry("public.t.d", "    digest: sha256:abc\n", "pinned twice, badly")                // digest and values
	entry("public.t.todo", "", "TODO changed since review: reviewed: the port widens it") // a stale review
	path := writeSQL(t, "allowlist.yaml", b.String())
	code, out, errs := runCLI(t, "allowlist", "check", path)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != ExitInput || out != "" || len(lines) != 23 {
		t.Fatalf("exit %d, stdout %q, %d lines on stderr:\n%s", code, out, len(lines), errs)
	}
	for i, want := range map[int]string{
		0:  path + ":3: entry 1 (column public.t.c0 type) has reason TODO",
		18: path + ":111: entry 19 (column public.t.c18 type) has reason TODO",
		19: path + ":123: entry 21 (column public.t.ok type) duplicates the entry at line 117",
		20: path + ":129: entry 22 (column public.t.d type) has both digest and artifact and port values",
		21: path + ":136: entry 23 (column public.t.todo type) has a reason that starts with TODO",
		22: path + ": 22 invalid entries",
	} {
		if !strings.HasPrefix(lines[i], "ledgercheck: "+want) {
			t.Errorf("line %d: %q, want it to start with %q", i+1, lines[i], "ledgercheck: "+want)
		}
	}
	// Elsewhere (parity, check) the error stays one line, and says there are more.
	_, err := allowlist.Parse(path, []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "(and 21 more invalid entries: `ledgercheck allowlist check "+path+"` lists them all)") {
		t.Errorf("Parse: %v", err)
	}
}
