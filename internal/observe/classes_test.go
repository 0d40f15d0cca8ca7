package observe_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// wantAnnotation is "-- want RULE[:MODEL] ..." at the end of a statement's first line.
var wantAnnotation = regexp.MustCompile(`-- want (.+)$`)

// wanted reads a file's annotations: "LINE RULE" or "LINE RULE MODEL" for each.
func wanted(t *testing.T, sql string) []string {
	t.Helper()
	var out []string
	for i, line := range strings.Split(sql, "\n") {
		m := wantAnnotation.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, w := range strings.Fields(m[1]) {
			rule, model, _ := strings.Cut(w, ":")
			s := strconv.Itoa(i+1) + " " + rule
			if model != "" {
				s += " " + model
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// got renders findings as wanted does.
func got(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		s := strconv.Itoa(f.Pos.Line) + " " + f.Rule
		if len(f.Models) > 0 {
			s += " " + strings.Join(f.Models, ",")
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Every class of exposure the attack runs wrote around the catalog's reading, in several
// spellings each, is observed and reported at the statement that opened it, under the
// privilege models where it holds: always-true conditions, column and grant-option grants,
// reach through views, functions, aggregates, triggers and rules, client-controlled values,
// self-enrolment, re-owned rows, side effects, SQL injection and outbound requests; a request
// that switches to service_role (as one can through Supabase's authenticator) is observed as
// what it reads, one that resets its role gets nothing; a table in the realtime publication
// says it streams. The owner-only and service_role-only tables of the same file stay clean.
// One install per privilege model serves every case.
func TestObservedClasses(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../testdata/observe/classes.sql")
	if err != nil {
		t.Fatal(err)
	}
	fs, obs := observed(t, "../../testdata/observe/classes.sql", string(src))
	// The findings as a reviewer reads them (every rule's failing case, for the rule catalog).
	var report []string
	for _, f := range fs {
		report = append(report, f.String())
	}
	golden.Check(t, "testdata/golden/classes.txt", []byte(strings.Join(report, "\n")+"\n"))
	want := wanted(t, string(src))
	if g := got(fs); !slices.Equal(g, want) {
		t.Errorf("findings:\n%s\n\ngot (line rule models):\n%s\nwant:\n%s", strings.Join(lines(fs), "\n"), strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range fs {
		if strings.Contains(f.Object, "nb_live_pages") || strings.Contains(f.Object, "nb_cursors") {
			if !strings.Contains(f.Message, "supabase_realtime") {
				t.Errorf("%s: a table in the realtime publication, and the message does not say it streams: %s", f.Object, f.Message)
			}
		}
	}
	// A reviewed suppression at the statement that opened the access accepts that finding alone.
	f, err := sqlscript.Parse("../../testdata/observe/classes.sql", src, 1536)
	if err != nil {
		t.Fatal(err)
	}
	suppressed := observe.Findings(observe.FindingsInput{File: f, Suppressed: func(rule string, pos finding.Position) bool {
		return rule == observe.RuleAnonReadsRows && pos.Line == 9
	}}, obs)
	if len(suppressed) != len(fs)-1 || slices.ContainsFunc(suppressed, func(x finding.Finding) bool { return x.Rule == observe.RuleAnonReadsRows && x.Pos.Line == 9 }) {
		t.Errorf("with anon-reads-rows at line 9 suppressed: %d findings of %d", len(suppressed), len(fs))
	}
	// A request that resets its role lands on the observer, which holds nothing: the call fails.
	for _, ob := range obs {
		for _, c := range ob.Cells {
			if c.Object == "function public.nb_ops_peek_reset()" && c.Allowed {
				t.Errorf("%s: %s's call of nb_ops_peek_reset after RESET ROLE succeeded (%d rows)", ob.Model, c.Persona, c.Rows)
			}
		}
	}
}

// Every spelling of a policy that trusts what the client sends is observed: the path to a key
// of user_metadata as a function's arguments, a text array, jsonb subscripts, a contained JSON
// document, a JSON path, a helper whose key is its argument, a key computed from pieces (the
// read's plan folds it), a request header read through a function, a cookie, and a value
// looked up in another table. What the observation tries comes from the policy's literals, its
// plan and the rows it reads, whatever reads them; app_metadata (only the server sets it) and
// owner-only rows stay clean. A lookup through a view of the file is not tried: the reader
// never reads a view, and the view's trap, which raises in the reader's session, proves it.
func TestClientValuesInEverySpelling(t *testing.T) {
	t.Parallel()
	const name = "../../testdata/observe/client_values.sql"
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := observedOn(t, scratchtest.Server(t), name, string(src), models[0])
	want := wanted(t, string(src))
	if g := got(fs); !slices.Equal(g, want) {
		t.Errorf("findings:\n%s\n\ngot (line rule models):\n%s\nwant:\n%s", strings.Join(lines(fs), "\n"), strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}
