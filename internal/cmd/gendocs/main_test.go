package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/docs"
	"github.com/ledgercheck/ledgercheck/internal/cli"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// root is the repository root, from this package's directory.
const root = "../../.."

// TestRulesIndexInSync fails when docs/rules/README.md differs from what the catalog says; run
// `go run ./internal/cmd/gendocs` to fix it.
func TestRulesIndexInSync(t *testing.T) {
	got, err := os.ReadFile(filepath.Join(root, indexPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != index(rule.All()) {
		t.Errorf("%s is out of date with the rule catalog; run `go run ./internal/cmd/gendocs` from the repository root", indexPath)
	}
	for _, r := range rule.All() {
		if !strings.Contains(string(got), "("+r.ID+".md)") {
			t.Errorf("%s does not link rule %s", indexPath, r.ID)
		}
	}
	for _, ph := range phases {
		delete(unlisted, ph.name)
	}
	for _, r := range rule.All() {
		if _, ok := unlisted[string(r.Phase)]; ok {
			t.Errorf("rule %s has phase %s, which the index does not list", r.ID, r.Phase)
		}
	}
}

// TestReadmeCommandsInSync fails when README.md's table of commands is not the commands' own
// (a command, a subcommand such as allowlist check, or a usage line missing or changed).
func TestReadmeCommandsInSync(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, readmePath))
	if err != nil {
		t.Fatal(err)
	}
	want, err := splice(doc, cli.CommandTable())
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Error("README.md's table of commands is out of date; run `go run ./internal/cmd/gendocs` from the repository root")
	}
	for _, c := range []string{"`ledgercheck allowlist check FILE`", "`ledgercheck check`", "`ledgercheck explain [RULE]`"} {
		if !strings.Contains(string(want), c) {
			t.Errorf("the table of commands has no %s", c)
		}
	}
}

func TestSplice(t *testing.T) {
	got, err := splice([]byte("a\n"+commandsBegin+"\nold\n"+commandsEnd+"\nb\n"), "new\n")
	if err != nil || string(got) != "a\n"+commandsBegin+"\nnew\n"+commandsEnd+"\nb\n" {
		t.Errorf("splice: %q, %v", got, err)
	}
	if _, err := splice([]byte("no markers"), "x"); err == nil {
		t.Error("splice without markers did not fail")
	}
}

// unlisted starts as every phase; TestRulesIndexInSync removes the index's.
var unlisted = map[string]bool{string(finding.PhaseLint): true, string(finding.PhaseInstall): true, string(finding.PhaseAudit): true,
	string(finding.PhaseParity): true, string(finding.PhaseProbe): true, string(finding.PhaseAllow): true, string(finding.PhaseRerun): true,
	string(finding.PhaseLocks): true}

// TestEveryRuleHasAPageAndEveryPageARule: the pages in docs/rules on disk, the pages the binary
// embeds and the registered rules are the same set, every page parses and says what its rule
// is registered as (read at run time on first use), and every page has the sections a reader
// looks for.
func TestEveryRuleHasAPageAndEveryPageARule(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "rules", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, f := range files {
		if base := filepath.Base(f); base != docs.RuleIndex {
			onDisk = append(onDisk, strings.TrimSuffix(base, ".md"))
		}
	}
	slices.Sort(onDisk) // by id, as RulePageIDs: the file names sort "a-b.md" before "a.md"
	ids := rule.IDs()
	for _, id := range ids {
		if !slices.Contains(onDisk, id) {
			t.Errorf("rule %s has no page docs/rules/%s.md", id, id)
		}
	}
	for _, id := range onDisk {
		if !slices.Contains(ids, id) {
			t.Errorf("docs/rules/%s.md documents no registered rule", id)
		}
	}
	if !slices.Equal(docs.RulePageIDs(), onDisk) {
		t.Errorf("the embedded pages %v are not the pages on disk %v", docs.RulePageIDs(), onDisk)
	}
	// Read on first use at run time: each must parse and say what its rule is registered as.
	if err := rule.CheckPages(); err != nil {
		t.Error(err)
	}
	for _, r := range rule.All() {
		for _, h := range []string{"\n# " + r.ID + "\n", "\n## What it catches\n", "\n## Why it matters\n", "\n## Example\n", "\n## Configuration\n"} {
			if !strings.Contains(r.Page, h) {
				t.Errorf("docs/rules/%s.md has no %q", r.ID, strings.TrimSpace(h))
			}
		}
	}
}

// TestParsePage: a page's front matter is checked (known keys, a summary, a security severity
// in range with its tag).
func TestParsePage(t *testing.T) {
	for _, tc := range []struct{ page, err string }{
		{"---\nid: a\nphase: lint\nseverity: error\nsummary: s\n---\n\n# a\n", ""},
		{"# a\n", "no front matter"},
		{"---\nid: a\nsummary: s\n", "not closed"},
		{"---\nid: a\nsumary: s\n---\n", "sumary"},
		{"---\nid: a\n---\n", "no summary"},
		{"---\nid: a\nsummary: s\nsecurity-severity: \"11\"\ntags: [security]\n---\n", "not a number"},
		{"---\nid: a\nsummary: s\nsecurity-severity: \"5.0\"\n---\n", "security tag"},
	} {
		_, _, err := rule.ParsePage([]byte(tc.page))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: error %v; want %q", tc.page, err, tc.err)
		}
	}
}
