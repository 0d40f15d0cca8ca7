package gate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
)

// The report is a pure function of the request and the runs: assembling it twice gives the
// same report, and folding a rerun failure into lint's finding (one cause, one finding) edits
// the report's copies, never the steps' results.
func TestAssembleIsPure(t *testing.T) {
	src := []byte("CREATE TABLE IF NOT EXISTS public.t (id int);\nCREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n")
	f, err := pgsql.Parse("a.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	at := finding.Position{File: "a.sql", Line: 2, Col: 1}
	v := Variant{Name: "artifact", File: "a.sql", Src: src, Dim: 1536}
	r := &variantRun{v: v, file: f,
		lint: report.PhaseResult{Phase: finding.PhaseLint, Name: "lint artifact", File: "a.sql",
			Findings: []finding.Finding{{Phase: finding.PhaseLint, Rule: lint.NotIdempotent, Severity: finding.SevError, Pos: at, Message: "not rerunnable"}}},
		rerun: &report.PhaseResult{Phase: finding.PhaseRerun, Name: "rerun a.sql", File: "a.sql", Notes: []string{"rerun failed"},
			Counts:   map[string]int{"runs": 1},
			Findings: []finding.Finding{{Phase: finding.PhaseRerun, Rule: rerun.RuleRerunFailed, Severity: finding.SevError, Pos: at, Message: "run 2 of 3 failed"}}},
		upgrade: &report.PhaseResult{Phase: finding.PhaseRerun, Name: "upgrade", File: "a.sql", Status: report.StatusSkip, Notes: []string{"upgrade not run"}},
	}
	lintBefore, rerunBefore := slices.Clone(r.lint.Findings), *r.rerun
	rerunBefore.Findings, rerunBefore.Notes = slices.Clone(r.rerun.Findings), slices.Clone(r.rerun.Notes)
	req := Request{Artifact: v, Steps: Steps{Lint: true, Rerun: true}}
	for _, layout := range []rerunLayout{together, apart} {
		a, b := assemble(req, []*variantRun{r}, nil, layout), assemble(req, []*variantRun{r}, nil, layout)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("layout %d: two assemblies differ:\n%+v\n%+v", layout, a, b)
		}
		var names []string
		for _, ph := range a.Phases {
			names = append(names, ph.Name+" "+string(ph.Status))
		}
		want := []string{"lint artifact ", "rerun artifact fail"}
		if layout == apart {
			want = []string{"lint artifact ", "rerun a.sql fail", "upgrade skip"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("layout %d: phases %q, want %q", layout, names, want)
		}
		if got := a.Phases[0].Findings; len(got) != 1 || !strings.HasSuffix(got[0].Message, "(the rerun audit confirms it: "+a.Phases[1].Name+")") {
			t.Errorf("layout %d: lint's finding does not name the rerun phase it stands for: %v", layout, got)
		}
		if n := len(a.Phases[1].Findings); n != 0 {
			t.Errorf("layout %d: the rerun failure is reported twice (%d findings in the rerun phase)", layout, n)
		}
	}
	if !reflect.DeepEqual(r.lint.Findings, lintBefore) || !reflect.DeepEqual(*r.rerun, rerunBefore) {
		t.Errorf("assemble edited the steps' results: lint %v, rerun %+v", r.lint.Findings, *r.rerun)
	}
}
