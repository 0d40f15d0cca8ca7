// Command newrule scaffolds a new rule, as squawk's new-rule does: the rule's Go file (its id
// constant and registration; a lint rule with an empty check to fill in), a failing case for the
// phase's golden tests, and its page, docs/rules/ID.md, which is the rule's documentation
// (`ledgercheck explain`, SARIF's help and the rules index read it). `make new-rule` then
// regenerates the rules index (go run ./internal/cmd/gendocs), which links the new rule.
//
//	make new-rule ID=my-rule PHASE=lint
//	go run ./internal/cmd/newrule -id my-rule -phase lint [-severity warning] [-summary "..."] [-n]
//
// -n prints the files it would write and writes nothing. It refuses an id that is not kebab-case,
// an id already registered, an unknown phase, and a file that exists.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/ledgercheck/ledgercheck/internal/gate" // every registered rule, to refuse a duplicate id
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// file is one file the scaffold writes, relative to the repository root.
type file struct {
	path, content string
	appendTo      bool // appended to an existing file (the corpus's expect.yaml)
}

func main() {
	var o options
	flag.StringVar(&o.id, "id", "", "the rule's kebab-case id")
	flag.StringVar(&o.phase, "phase", "", "its phase: lint, install, audit, bodies, parity, probe, allowlist, rerun or locks")
	flag.StringVar(&o.severity, "severity", "error", "its default severity: error, warning or info")
	flag.StringVar(&o.summary, "summary", "", "its one-line summary (default: a TODO in the page)")
	flag.StringVar(&o.root, "root", ".", "the repository root")
	dry := flag.Bool("n", false, "print the files instead of writing them")
	flag.Parse()
	if err := run(o, *dry, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "newrule: %v\n", err)
		os.Exit(2)
	}
}

// options are the command line's.
type options struct {
	id, phase, severity, summary, root string
}

func run(o options, dry bool, out io.Writer) error {
	files, err := scaffold(o)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(o.root, f.path)
		if _, err := os.Stat(p); err == nil && !f.appendTo {
			return fmt.Errorf("%s exists; pick another id", f.path)
		}
	}
	for _, f := range files {
		if dry {
			fmt.Fprintf(out, "== %s%s ==\n%s\n", f.path, map[bool]string{true: " (appended)"}[f.appendTo], f.content)
			continue
		}
		if err := writeFile(filepath.Join(o.root, f.path), f.content, f.appendTo); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s\n", f.path)
	}
	if !dry {
		fmt.Fprintln(out, "next: write the page and the check, then `go run ./internal/cmd/gendocs` and the phase's golden tests with -update once the case fails as intended")
	}
	return nil
}

func writeFile(path, content string, appendTo bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if appendTo {
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scaffold returns the files of a new rule.
func scaffold(o options) ([]file, error) {
	if !rule.ValidID(o.id) {
		return nil, fmt.Errorf("-id %q is not kebab-case (lower-case letters, digits, inner hyphens)", o.id)
	}
	if _, ok := rule.Lookup(o.id); ok {
		return nil, fmt.Errorf("rule %s exists (docs/rules/%s.md)", o.id, o.id)
	}
	switch o.severity {
	case "error", "warning", "info":
	default:
		return nil, fmt.Errorf("-severity %q: want error, warning or info", o.severity)
	}
	ph, ok := phases[o.phase]
	if !ok {
		return nil, fmt.Errorf("-phase %q: want lint, install, audit, bodies, parity, probe, allowlist, rerun or locks", o.phase)
	}
	gf := ph.goFile(o)
	src, err := format.Source([]byte(gf.content))
	if err != nil {
		return nil, fmt.Errorf("the Go file does not format: %w", err)
	}
	gf.content = string(src)
	files := []file{{path: "docs/rules/" + o.id + ".md", content: page(o)}, gf}
	return append(files, ph.cases(o)...), nil
}

// phase is how a phase's rules are laid out: the package that registers them, the finding.Phase
// constant, and where its failing cases live.
type phase struct {
	pkg, constant string
	cases         func(o options) []file
}

var phases = map[string]phase{
	"lint":      {"lint", "PhaseLint", lintCase},
	"install":   {"gate", "PhaseInstall", rerunCase},
	"audit":     {"audit", "PhaseAudit", corpusCase},
	"bodies":    {"bodies", "PhaseBodies", bodiesCase},
	"parity":    {"parity", "PhaseParity", parityCase},
	"probe":     {"parity", "PhaseProbe", parityCase},
	"allowlist": {"parity", "PhaseAllow", parityCase},
	"rerun":     {"rerun", "PhaseRerun", rerunCase},
	"locks":     {"locks", "PhaseLocks", locksCase},
}

// goName is the id in Go's MixedCaps: my-rule is MyRule.
func goName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func severityConst(s string) string {
	return map[string]string{"error": "SevError", "warning": "SevWarning", "info": "SevInfo"}[s]
}

// goFile is the rule's Go file: a lint rule in internal/lint/<id>.go with its check, another
// phase's registration in that phase's package (the phase emits findings with the constant).
func (ph phase) goFile(o options) file {
	name, snake := goName(o.id), strings.ReplaceAll(o.id, "-", "_")
	constName := "Rule" + name // the other phases' packages name their ids Rule...
	if o.phase == "lint" {
		constName = name
	}
	head := fmt.Sprintf("package %s\n\nimport (\n\t\"github.com/ledgercheck/ledgercheck/internal/finding\"\n\t\"github.com/ledgercheck/ledgercheck/internal/rule\"\n)\n\n", ph.pkg)
	reg := fmt.Sprintf("rule.Register(rule.Rule{Phase: finding.%s,\n\t\tID: %s, Severity: finding.%s,\n\t})", ph.constant, constName, severityConst(o.severity))
	if o.phase == "lint" {
		return file{path: "internal/lint/" + snake + ".go", content: head + fmt.Sprintf(
			"// %s is the id of the rule below (docs/rules/%s.md).\nconst %s = %q\n\nvar _ = register(&Rule{\n\tRule: %s,\n\tCheck: func(p *Pass) {\n\t\t// Report what docs/rules/%s.md says the rule catches, e.g. for each statement\n\t\t// op of p.TopLevel(): p.Report(op.At(), op.Object().String(), \"...\").\n\t},\n})\n",
			name, o.id, name, o.id, strings.ReplaceAll(reg, "\n\t", "\n\t\t"), o.id)}
	}
	return file{path: "internal/" + ph.pkg + "/rule_" + snake + ".go", content: head + fmt.Sprintf(
		"// Rule%s is the id of the rule of docs/rules/%s.md, which this phase reports.\nconst Rule%s = %q\n\nvar _ = %s\n",
		name, o.id, name, o.id, reg)}
}

// caseSQL is the failing case's SQL: a clean sidecar (every other rule quiet) with a line where
// the statement the rule reports goes.
func caseSQL(o options) string {
	t := "public." + strings.ReplaceAll(o.id, "-", "_") + "_case"
	return fmt.Sprintf(`-- A failing case of %[1]s: put the statement it reports on line 3 (the page's failing example).
BEGIN;
CREATE TABLE IF NOT EXISTS %[2]s (id uuid PRIMARY KEY, step int);
ALTER TABLE %[2]s ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS case_service_role_all ON %[2]s;
CREATE POLICY case_service_role_all ON %[2]s
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON %[2]s TO service_role;
NOTIFY pgrst, 'reload schema';
COMMIT;
`, o.id, t)
}

// lintCase is testdata/lint/<id>: input.sql and the finding want.txt expects, which fails until
// the check reports it.
func lintCase(o options) []file {
	dir := "testdata/lint/" + o.id + "/"
	return []file{
		{path: dir + "input.sql", content: caseSQL(o)},
		{path: dir + "want.txt", content: fmt.Sprintf("input.sql:3:1: %s: the message the check writes [%s]\n", o.severity, o.id)},
	}
}

// rerunCase is testdata/rerun/<id>/input.sql; its want.txt comes from the golden test's -update
// once the rule fires (until then the case has none, and the test fails).
func rerunCase(o options) []file {
	return []file{{path: "testdata/rerun/" + o.id + "/input.sql", content: caseSQL(o)}}
}

// locksCase is testdata/locks/<id>/input.sql; its want.txt comes from the golden test's
// -update once the rule fires (internal/locks).
func locksCase(o options) []file {
	return []file{{path: "testdata/locks/" + o.id + "/input.sql", content: caseSQL(o)}}
}

// bodiesCase is testdata/bodies/<id>/input.sql; its want.txt comes from the golden test's
// -update once the rule fires (until then the case has none, and the test fails).
func bodiesCase(o options) []file {
	return []file{{path: "testdata/bodies/" + o.id + "/input.sql", content: caseSQL(o)}}
}

// parityCase is testdata/parity/<id>/case.yaml: the edits that make the port differ.
func parityCase(o options) []file {
	return []file{{path: "testdata/parity/" + o.id + "/case.yaml", content: fmt.Sprintf(
		"# A failing case of %s: edit the port (right_edits: old/new text of the port) so that the\n# rule fires; want.txt comes from the golden test's -update.\nright_edits: []\n", o.id)}}
}

// corpusCase is a corpus file (the installed audit is scored on testdata/corpus) and its labels.
func corpusCase(o options) []file {
	name := "90-" + o.id + ".sql"
	return []file{
		{path: "testdata/corpus/" + name, content: caseSQL(o)},
		{path: "testdata/corpus/expect.yaml", appendTo: true, content: fmt.Sprintf(
			"\n  %s:\n    modelled_on: \"TODO: the contribution this file imitates\"\n    kind: sidecar\n    needs: []\n    findings:\n      - {rule: %s, line: 3, note: \"TODO: why the rule fires here\"}\n    not: []\n", name, o.id)},
	}
}

// page is the rule's page: front matter and the sections every page has.
func page(o options) string {
	summary := o.summary
	if summary == "" {
		summary = "TODO: one line on what the rule reports"
	}
	return fmt.Sprintf(`---
id: %[1]s
phase: %[2]s
severity: %[3]s
summary: %[4]q
---

# %[1]s

%[5]s by default, %[2]s phase: %[4]s.

## What it catches

TODO: the statements or catalog states the rule reports, and what it leaves alone.

## Why it matters

TODO: what goes wrong on a Supabase project when this ships.

## Example

`+"```sql"+`
-- TODO: the failing statement (the case under testdata)
`+"```"+`

becomes

`+"```sql"+`
-- TODO: the corrected statement
`+"```"+`

## Configuration

TODO: the keys of ledgercheck.yaml that change what it reports, and how to accept one finding.
`, o.id, o.phase, o.severity, summary, strings.ToUpper(o.severity[:1])+o.severity[1:])
}
