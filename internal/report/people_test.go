package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// source is a migration the tests' findings point into: a tab before a statement, a multibyte
// identifier, a terminal escape in a comment and a line longer than the excerpt's limit.
var source = "-- agent notes\n" +
	"\tCREATE TABLE public.agent_notes (id uuid);\n" +
	"CREATE TABLE public.notes_é (id uuid); -- \x1b[2J\n" +
	"SELECT '" + strings.Repeat("x", 500) + "', now();\n"

// people is a report of three findings in source and one parity difference, whose Source is
// source.
func people(base string) *Report {
	return &Report{Tool: "ledgercheck", Version: "1.2.3", HelpBase: base,
		Source: func(file string) []byte {
			if file == "m.sql" {
				return []byte(source)
			}
			return nil
		},
		Phases: []PhaseResult{{Phase: finding.PhaseLint, Name: "lint m.sql", File: "m.sql", Findings: []finding.Finding{
			{Phase: finding.PhaseLint, Rule: "table-rls-disabled", Severity: finding.SevError, Pos: finding.Position{File: "m.sql", Line: 2, Col: 15}, Message: "table public.agent_notes is created without ENABLE ROW LEVEL SECURITY"},
			{Phase: finding.PhaseLint, Rule: "dynamic-sql", Severity: finding.SevWarning, Pos: finding.Position{File: "m.sql", Line: 3, Col: 14}, Message: "after é"},
			{Phase: finding.PhaseLint, Rule: "dynamic-sql", Severity: finding.SevWarning, Pos: finding.Position{File: "m.sql", Line: 4, Col: 250}, Message: "far right"},
		}}, {Phase: finding.PhaseParity, Name: "parity port", File: "p.sql", Findings: []finding.Finding{
			{Phase: finding.PhaseParity, Rule: "unreviewed-difference", Severity: finding.SevError, Object: "table public.agent_notes", Message: "rls differs",
				Accept: "- kind: table\n  object: public.agent_notes\n  attr: rls\n  artifact: \"true\"\n  port: \"false\"\n  reason: TODO\n"},
		}}},
	}
}

// TestLintTextQuotesTheLine: lint's text puts the source line under each finding with a caret at
// its column (a tab kept as a tab, a multibyte character as one), a long line cut around the
// column, a terminal escape made visible (the caret still under its character), and ends with
// the verdict, the counts and the number of files.
func TestLintTextQuotesTheLine(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLintText(&b, people(""), false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"m.sql:2:15: error: table public.agent_notes is created without ENABLE ROW LEVEL SECURITY [table-rls-disabled]\n" +
			"  2 | \tCREATE TABLE public.agent_notes (id uuid);\n" +
			"    | \t             ^\n",
		"m.sql:3:14: warning: after é [dynamic-sql]\n" +
			"  3 | CREATE TABLE public.notes_é (id uuid); -- \\x1b[2J\n" +
			"    |              ^\n",
		"\nFAIL: 2 errors, 2 warnings in 2 files\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint text lacks\n%s\nin\n%s", want, out)
		}
	}
	var far []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  4 | ") || strings.HasPrefix(l, "    | ") && len(far) == 1 {
			far = append(far, strings.TrimPrefix(strings.TrimPrefix(l, "  4 | "), "    | "))
		}
	}
	if len(far) != 2 || !strings.HasPrefix(far[0], "…") || !strings.HasSuffix(far[0], "…") || []rune(far[0])[len([]rune(far[1]))-1] != 'x' ||
		len([]rune(far[0])) > maxExcerptLine+2 {
		t.Errorf("the long line is not cut around column 250 with the caret under an x: %q", far)
	}
	var none bytes.Buffer
	clean := &Report{Tool: "ledgercheck", Phases: []PhaseResult{{Phase: finding.PhaseLint, Name: "lint a.sql"}, {Phase: finding.PhaseLint, Name: "lint b.sql"}}}
	if err := WriteLintText(&none, clean, false); err != nil || none.String() != "PASS: no findings in 2 files\n" {
		t.Errorf("no findings: %q, %v; want the verdict line alone", none.String(), err)
	}
}

// TestHTMLQuotesLinksAndAccepts: each html finding carries the SQL at its position with its column
// marked, a link to its rule's page (its address under a help base; else the page embedded in the
// report, the link pointing at it), and how to accept it ready to paste: a suppression comment for
// a rule a comment suppresses, the allowlist entry the parity phase offers.
func TestHTMLQuotesLinksAndAccepts(t *testing.T) {
	for _, base := range []string{"", "https://docs.example.invalid/ledgercheck/docs/rules"} {
		var b bytes.Buffer
		if err := WriteHTML(&b, people(base)); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		text := parseHTML(t, page)
		for _, want := range []string{
			"1 | -- agent notes\n  2 | \tCREATE TABLE public.agent_notes (id uuid);\n    | \t             ^\n  3 | CREATE TABLE",
			"-- ledgercheck:ignore table-rls-disabled <why it is accepted>",
			"- kind: table\n  object: public.agent_notes\n  attr: rls",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("base %q: the page lacks %q", base, want)
			}
		}
		link := `<a href="#rule-table-rls-disabled">table-rls-disabled</a>`
		embedded := `<details class="page" id="rule-table-rls-disabled">`
		if base != "" {
			link = `<a href="` + base + `/table-rls-disabled.md">table-rls-disabled</a>`
			embedded = ""
		}
		if !strings.Contains(page, link) {
			t.Errorf("base %q: no link %s", base, link)
		}
		if hasPages := strings.Contains(page, `<section id="rules">`); hasPages != (base == "") || embedded != "" && !strings.Contains(page, embedded) {
			t.Errorf("base %q: rule pages embedded %v; want them only without a base", base, hasPages)
		}
		if n := strings.Count(text, "ledgercheck:ignore unreviewed-difference"); n != 0 {
			t.Errorf("base %q: a parity difference is offered a suppression comment", base)
		}
	}
}

// TestSARIFHelpURIOnlyWithABase: without a help base SARIF names no address (no helpUri, no
// informationUri) and still carries every rule's page as help; with one, every rule's helpUri is
// BASE/ID.md, a page docs/rules has, and informationUri the rules index.
func TestSARIFHelpURIOnlyWithABase(t *testing.T) {
	for _, base := range []string{"", "https://docs.example.invalid/x/docs/rules/"} {
		r := sample()
		r.HelpBase = base
		var b bytes.Buffer
		if err := WriteSARIF(&b, r); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						InformationURI string `json:"informationUri"`
						Rules          []struct {
							ID      string `json:"id"`
							HelpURI string `json:"helpUri"`
							Help    struct{ Text string }
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Tool.Driver.Rules) == 0 {
			t.Fatalf("base %q: %v", base, err)
		}
		d := log.Runs[0].Tool.Driver
		if want := map[bool]string{true: "", false: "https://docs.example.invalid/x/docs/rules/README.md"}[base == ""]; d.InformationURI != want {
			t.Errorf("base %q: informationUri %q, want %q", base, d.InformationURI, want)
		}
		for _, ru := range d.Rules {
			want := ""
			if base != "" {
				want = "https://docs.example.invalid/x/docs/rules/" + ru.ID + ".md"
				if _, err := os.Stat(filepath.Join("../../docs/rules", ru.ID+".md")); err != nil {
					t.Errorf("%s: helpUri names a page docs/rules does not have", ru.ID)
				}
			}
			if ru.HelpURI != want || !strings.HasPrefix(ru.Help.Text, "# "+ru.ID) {
				t.Errorf("base %q: rule %s helpUri %q, help %.40q; want %q and its page", base, ru.ID, ru.HelpURI, ru.Help.Text, want)
			}
		}
	}
}
