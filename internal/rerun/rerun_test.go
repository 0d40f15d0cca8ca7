package rerun

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The default fixture is found from the repository root and from any directory below it, and
// its absence says how to proceed.
func TestFindDefaultFixture(t *testing.T) {
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join(root, "rerun"), filepath.Join(root, "testdata", "rerun", "artifact")} {
		got, err := FindDefaultFixture(dir)
		if err != nil {
			t.Fatalf("from %s: %v", dir, err)
		}
		if abs := filepath.Join(dir, got); abs != filepath.Join(root, filepath.FromSlash(DefaultFixture)) {
			t.Errorf("from %s: %s, which is %s", dir, got, abs)
		}
	}
	if got, _ := FindDefaultFixture(root); got != filepath.FromSlash(DefaultFixture) {
		t.Errorf("from the root: %q, want the relative %q", got, DefaultFixture)
	}
	_, err = FindDefaultFixture(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--fixture FILE, or --no-fixture") {
		t.Errorf("outside the repository: %v", err)
	}
}

// Invalid options are errors, not findings, and need no server.
func TestAuditOptionErrors(t *testing.T) {
	file := SQLFile{Name: "x.sql", Src: []byte("SELECT 1")}
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{File: file}, "dimension 0"},
		{Options{File: file, Dim: 1536, Times: -1}, "-1 times"},
		{Options{Dim: 1536}, "no migration file"},
	} {
		if _, err := Audit(context.Background(), nil, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// A fixture that does not fit the migration is a finding at the fixture's failing statement,
// for the rerun audit and for the upgrade audit; a previous version that does not install is one
// too. The audit does not go on after them.
func TestSetupFailures(t *testing.T) {
	srv := scratchtest.Server(t)
	table := SQLFile{Name: "v2.sql", Src: []byte("CREATE TABLE IF NOT EXISTS public.notes (id int PRIMARY KEY);\n")}
	badFixture := &SQLFile{Name: "fixture.sql", Src: []byte("INSERT INTO public.notes VALUES (1) ON CONFLICT DO NOTHING;\nINSERT INTO public.nope VALUES (1);\n")}
	res, err := Audit(context.Background(), srv, Options{File: table, Dim: 1536, Fixture: badFixture,
		Previous: &SQLFile{Name: "v1.sql", Src: []byte("CREATE TABLE IF NOT EXISTS public.notes (id int PRIMARY KEY);\n")}})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]finding.Finding{}
	for _, f := range res.Findings {
		rules[f.Rule] = f
	}
	for _, r := range []string{"rerun-fixture-failed", "upgrade-fixture-failed"} {
		f, ok := rules[r]
		if !ok {
			t.Errorf("no %s finding in %v", r, res.Findings)
			continue
		}
		if f.Pos.File != "fixture.sql" || f.Pos.Line != 2 || !strings.Contains(f.Message, `relation "public.nope" does not exist`) {
			t.Errorf("%s: %s", r, f)
		}
	}
	if len(res.Findings) != 2 || res.Runs != 1 {
		t.Errorf("%d runs, findings %v; want 1 run and the two fixture findings only", res.Runs, res.Findings)
	}

	res, err = Audit(context.Background(), srv, Options{File: table, Dim: 1536,
		Previous: &SQLFile{Name: "v1.sql", Src: []byte("CREATE TABLE public.notes (id int PRIMARY KEY,);\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "upgrade-previous-failed" || res.Findings[0].Pos.Line != 1 ||
		!strings.Contains(res.Findings[0].Message, "syntax error") {
		t.Errorf("a previous version with a syntax error: %v", res.Findings)
	}
	if !res.Failed() || len(res.Phases()) != 2 {
		t.Errorf("Failed() = %v with %d phases", res.Failed(), len(res.Phases()))
	}
}

// Every rule an audit can report is described, once, and every described rule is reported
// somewhere.
func TestRulesDescribed(t *testing.T) {
	var src string
	for _, f := range []string{"rerun.go", "compare.go", "state.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src += string(b)
	}
	// The rules are reported through their constants, RuleRerunFailed for rerun-failed.
	constName := func(id string) string {
		var b strings.Builder
		b.WriteString("Rule")
		for _, w := range strings.Split(id, "-") {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
		return b.String()
	}
	described := 0
	for _, r := range rule.All() {
		if r.Phase != finding.PhaseRerun {
			continue
		}
		described++
		if !regexp.MustCompile(`\b` + constName(r.ID) + `\b`).MatchString(src) {
			t.Errorf("rule %s is registered but never reported", r.ID)
		}
	}
	for _, m := range regexp.MustCompile(`\bRule[A-Z]\w+`).FindAllString(src, -1) {
		found := false
		for _, r := range rule.All() {
			found = found || constName(r.ID) == m
		}
		if !found {
			t.Errorf("%s is reported but not registered", m)
		}
	}
	if described < 10 {
		t.Fatalf("only %d rerun rules registered", described)
	}
}
