package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// TestReadmeRulesInSync fails when README.md's rules section differs from what the registry
// (and so `ledgercheck explain`) says; run `go run ./internal/cmd/gendocs` to fix it.
func TestReadmeRulesInSync(t *testing.T) {
	doc, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := splice(doc, rulesSection())
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Error("README.md's rules section is out of date with the rule catalog; run `go run ./internal/cmd/gendocs` from the repository root")
	}
	for _, r := range rule.All() {
		if !strings.Contains(string(doc), "#### "+r.ID+"\n") {
			t.Errorf("README.md does not document rule %s", r.ID)
		}
	}
}

func TestSplice(t *testing.T) {
	got, err := splice([]byte("a\n"+beginMarker+"\nold\n"+endMarker+"\nb\n"), "new\n")
	if err != nil || string(got) != "a\n"+beginMarker+"\nnew\n"+endMarker+"\nb\n" {
		t.Errorf("splice: %q, %v", got, err)
	}
	if _, err := splice([]byte("no markers"), "x"); err == nil {
		t.Error("splice without markers did not fail")
	}
}

func TestExplainMarkdown(t *testing.T) {
	got := explainMarkdown("Why.\n\n    CREATE TABLE t ();\n\n    DROP TABLE t;\n\nbecomes\n")
	want := "Why.\n\n```sql\nCREATE TABLE t ();\n\nDROP TABLE t;\n```\n\nbecomes\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestExplainMarkdownListContinuation: the continuation lines of a list item, indented under it,
// stay in the list; only an indented block after a blank line is code.
func TestExplainMarkdownListContinuation(t *testing.T) {
	got := explainMarkdown("Rules:\n  - CREATE TABLE needs IF NOT EXISTS (an\n    index also needs a name);\n  - DROP needs IF EXISTS.\n\n    DROP TABLE IF EXISTS t;\n")
	want := "Rules:\n  - CREATE TABLE needs IF NOT EXISTS (an\n    index also needs a name);\n  - DROP needs IF EXISTS.\n\n```sql\nDROP TABLE IF EXISTS t;\n```\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
