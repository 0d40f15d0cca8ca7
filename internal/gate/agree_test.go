package gate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
)

// One finding says once that the installed audit confirms it, though two of the audit's rules
// (rls-disabled-in-public and policy-exists-rls-disabled) find the table lint reported; the audit
// phase, which fails with no finding of its own, counts the one finding of lint's that stands for them, so its
// fail never stands over a bare 0 in any format; and each of its notes is said once.
func TestConfirmedFindingSaysItOnce(t *testing.T) {
	res := checkCorpusFile(t, "06-policy-without-rls-pins.sql", Steps{Lint: true, Audit: true})
	var audit *report.PhaseResult
	confirmed := 0
	for i, ph := range res.Report.Phases {
		for _, f := range ph.Findings {
			if n := strings.Count(f.Message, "confirms it"); n > 1 {
				t.Errorf("%s: %q says %d times that it is confirmed", ph.Name, f.Message, n)
			} else {
				confirmed += n
			}
		}
		if ph.Name == "audit artifact" {
			audit = &res.Report.Phases[i]
		}
	}
	if confirmed == 0 {
		t.Fatalf("no finding is confirmed by the audit: %+v", res.Report.Phases)
	}
	if audit != nil {
		seen := map[string]bool{}
		for _, n := range audit.Notes {
			if seen[n] {
				t.Errorf("audit artifact says twice: %q", n)
			}
			seen[n] = true
		}
	}
	if audit == nil || audit.Status != report.StatusFail || len(audit.Findings) != 0 || audit.FoldedInto != "lint artifact" {
		t.Fatalf("audit artifact: %+v; want fail, no findings, 1 folded into lint artifact (its one finding stands for all)", audit)
	}
}

// The rerun's progress line on stderr is its phase as the report shows it: a rerun failure
// folded into lint's not-idempotent finding leaves the phase failed with no finding of its own,
// and the line says so ("fail, 0 findings (+1 in lint artifact)"), not "1 findings" beside a
// table that counts none.
func TestRerunProgressLineIsTheReportsPhase(t *testing.T) {
	src := []byte("CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n")
	f, err := pgsql.Parse("a.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	at := finding.Position{File: "a.sql", Line: 1, Col: 1}
	r := &variantRun{v: Variant{Name: "artifact", File: "a.sql", Src: src, Dim: 1536}, file: f,
		lint: report.PhaseResult{Phase: finding.PhaseLint, Name: "lint artifact", File: "a.sql",
			Findings: []finding.Finding{{Phase: finding.PhaseLint, Rule: lint.NotIdempotent, Severity: finding.SevError, Pos: at, Message: "not rerunnable"}}},
		rerun: &report.PhaseResult{Phase: finding.PhaseRerun, Name: "rerun a.sql", File: "a.sql",
			Findings: []finding.Finding{{Phase: finding.PhaseRerun, Rule: rerun.RuleRerunFailed, Severity: finding.SevError, Pos: at, Message: "run 2 of 2 failed"}}},
		rerunTook: 5 * time.Millisecond,
	}
	steps := Steps{Lint: true, Rerun: true}
	var lines []string
	p := &pipeline{steps: steps, say: func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }}
	p.sayRerun(r)
	rep := assemble(Request{Artifact: r.v, Steps: steps}, []*variantRun{r}, nil, together)
	rep.Finish()
	var want []string
	for i := range rep.Phases {
		if ph := &rep.Phases[i]; ph.Phase == finding.PhaseRerun {
			want = append(want, report.ProgressLine(ph))
		}
	}
	if !slices.Equal(lines, want) || len(want) != 1 || !strings.HasPrefix(want[0], "rerun artifact: fail, 0 findings (+1 in lint artifact)") {
		t.Errorf("stderr says %q; the report's rerun phase is %q (want fail, 0 findings, +1 in lint artifact)", lines, want)
	}
}
