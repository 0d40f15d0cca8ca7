package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestOutputFlagErrors: a bad --output (no '=', an unknown format, a path that cannot be written,
// a directory, the same path twice) is one line and exit 2 on every command that reports
// findings, and nothing is written. The checks come before the configuration is read or a server
// started: the migrations named do not even exist.
func TestOutputFlagErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.sql")
	for _, tc := range []struct {
		output []string
		want   string
	}{
		{[]string{"sarif"}, `invalid value "sarif" for --output: want FORMAT=PATH, FORMAT one of text, json, sarif, github, html`},
		{[]string{"sarif="}, `want FORMAT=PATH`},
		{[]string{"xml=a.xml"}, `"xml" is not a format; want one of text, json, sarif, github, html`},
		{[]string{"sarif=" + filepath.Join(dir, "no", "such", "dir", "a.sarif")}, `--output sarif=` + filepath.Join(dir, "no", "such", "dir", "a.sarif") + `: cannot write it: no such file or directory`},
		{[]string{"html=" + dir}, `is not a regular file`},
		{[]string{"sarif=" + filepath.Join(dir, "a"), "json=" + filepath.Join(dir, "a")}, `is already the output of sarif`},
	} {
		var flags []string
		for _, o := range tc.output {
			flags = append(flags, "--output", o)
		}
		for _, cmd := range [][]string{
			{"check", "--config", repoConfig, "--artifact", missing},
			{"lint", missing},
			{"parity", "--config", repoConfig, "--port", missing},
			{"rerun", missing},
		} {
			args := append(cmd, flags...)
			code, out, errs := runCLI(t, args...)
			if code != ExitInput || out != "" || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", args, code, out, errs, tc.want)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused --output left files behind: %v", entries)
	}
}

// TestLintWritesSeveralOutputs: one lint run prints its compact text on stdout and writes sarif,
// json and (uncolored, compact) text files, the same findings in each.
func TestLintWritesSeveralOutputs(t *testing.T) {
	p := writeSQL(t, "m.sql", cleanSQL+"ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\nNOTIFY pgrst, 'reload schema';\n")
	dir := t.TempDir()
	sarif, js, text := filepath.Join(dir, "a.sarif"), filepath.Join(dir, "a.json"), filepath.Join(dir, "a.txt")
	code, out, errs := runCLI(t, "lint", "-q", "--color", "always", "--output", "sarif="+sarif, "--output", "json="+js, "--output", "text="+text, p)
	if code != ExitFindings || !strings.Contains(out, "[modifies-existing-object]") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and the finding on stdout", code, out, errs)
	}
	for _, f := range []string{sarif, js, text} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "modifies-existing-object") {
			t.Errorf("%s lacks the finding:\n%s", f, b)
		}
		if f != text && !json.Valid(b) {
			t.Errorf("%s is not JSON:\n%.300s", f, b)
		}
	}
	if b, _ := os.ReadFile(text); string(b) != ansi.ReplaceAllString(out, "") || strings.Contains(string(b), "\x1b[") || !strings.Contains(out, "\x1b[") {
		t.Errorf("the text file is not stdout's compact text without colour, or stdout (--color always) has none:\nfile   %q\nstdout %q", b, out)
	}
}

// ansi matches an ANSI colour escape.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestLintColor: lint's text honours --color (always: escapes even into a pipe; never: none) and,
// by default, colours nothing that is not a terminal, nor with NO_COLOR set.
func TestLintColor(t *testing.T) {
	p := writeSQL(t, "m.sql", cleanSQL+"ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS x int;\nNOTIFY pgrst, 'reload schema';\n")
	for _, tc := range []struct {
		args    []string
		noColor string
		colored bool
	}{
		{[]string{"--color", "always"}, "", true},
		{[]string{"--color", "always"}, "1", true},
		{[]string{"--color", "never"}, "", false},
		{nil, "", false}, // stdout is no terminal here
		{[]string{"--color", "auto"}, "1", false},
	} {
		t.Setenv("NO_COLOR", tc.noColor)
		_, out, _ := runCLI(t, append([]string{"lint", "-q", p}, tc.args...)...)
		if colored := ansi.MatchString(out); colored != tc.colored {
			t.Errorf("lint %v, NO_COLOR=%q: coloured %v, want %v:\n%q", tc.args, tc.noColor, colored, tc.colored, out)
		}
	}
}

// TestCheckWritesSeveralOutputs: `check --output sarif=a.sarif --output html=a.html` writes both
// from one run, beside the text report on stdout, and keeps the gate's exit code.
func TestCheckWritesSeveralOutputs(t *testing.T) {
	scratchtest.NeedPostgres(t)
	dir := t.TempDir()
	sarif, html := filepath.Join(dir, "a.sarif"), filepath.Join(dir, "a.html")
	code, out, errs := runCLI(t, "check", "-q", "--config", repoConfig, "--output", "sarif="+sarif, "--output", "html="+html)
	if code != ExitOK || !strings.Contains(out, "PASS") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and the text report", code, out, errs)
	}
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) != 1 || doc.Runs[0].Tool.Driver.Name != "ledgercheck" {
		t.Errorf("%s: %v, version %q, %d runs; want one SARIF 2.1.0 run of ledgercheck", sarif, err, doc.Version, len(doc.Runs))
	}
	h, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(h), "<!DOCTYPE html>") || !strings.Contains(string(h), "parity production-1024") {
		t.Errorf("%s is not check's html report:\n%.300s", html, h)
	}
}
