package corpus

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// Spans maps a line of a file to the top-level statement it lies in, for matching (a finding
// matches a label when the rule is the same and the line is the label's or lies within the
// same statement). A file that does not parse has no spans: lines must then be equal.
type Spans struct {
	// Start and End are the first and last line of each top-level statement, in order.
	Start, End []int
}

// stmt returns the index of the statement that holds line, or -1.
func (s Spans) stmt(line int) int {
	for i := range s.Start {
		if s.Start[i] <= line && line <= s.End[i] {
			return i
		}
	}
	return -1
}

// same reports whether lines a and b match: equal, or in one statement.
func (s Spans) same(a, b int) bool {
	if a == b {
		return true
	}
	i := s.stmt(a)
	return i >= 0 && i == s.stmt(b)
}

// FileResult is how a file's reported findings compare with its labels.
type FileResult struct {
	Name string
	// Hits are the labels reported; Missed the labels not reported.
	Hits   []Label
	Missed []Label
	// Extra are reported findings no label accounts for (false positives); Traps are the `not`
	// entries among them.
	Extra []finding.Finding
	Traps []Trap
	// Reported is every finding the run reported, install-failed included (which is not scored:
	// it is recorded in the labels as `install:`).
	Reported []finding.Finding

	expect FileExpect // the labels, and the file's statements, to score it again per model
	spans  Spans
}

// ForModel scores results again for one kind of project: the findings that hold in it (an
// audit finding says where it holds when not everywhere) against the labels that do.
func ForModel(results []FileResult, model string) []FileResult {
	out := make([]FileResult, len(results))
	for i, r := range results {
		fe := r.expect
		fe.Findings, fe.Not = labelsIn(fe.Findings, model), labelsIn(fe.Not, model)
		var reported []finding.Finding
		for _, f := range r.Reported {
			if inModel(f.Models, model) {
				reported = append(reported, f)
			}
		}
		out[i] = Match(r.Name, fe, reported, r.spans)
	}
	return out
}

func labelsIn(ls []Label, model string) []Label {
	var out []Label
	for _, l := range ls {
		if l.holds(model) {
			out = append(out, l)
		}
	}
	return out
}

// Trap is a false-positive trap hit: the trap and the finding that hit it.
type Trap struct {
	Label   Label
	Finding finding.Finding
}

// unscored are the rules the labels do not score (see testdata/corpus/README.md).
var unscored = map[string]bool{"install-failed": true}

// Match compares the findings reported on one file with its labels.
func Match(name string, fe FileExpect, reported []finding.Finding, sp Spans) FileResult {
	res := FileResult{Name: name, Reported: reported, expect: fe, spans: sp}
	var scored []finding.Finding
	for _, f := range reported {
		if !unscored[f.Rule] {
			scored = append(scored, f)
		}
	}
	used := make([]bool, len(scored))
	hit := make([]bool, len(fe.Findings))
	// Exact lines first, so that two labels in one statement (two statements of one function
	// body) each take their own finding; then lines within the same statement.
	for pass := 0; pass < 2; pass++ {
		for li, l := range fe.Findings {
			if hit[li] {
				continue
			}
			for fi, f := range scored {
				if used[fi] || f.Rule != l.Rule {
					continue
				}
				if f.Pos.Line == l.Line || pass == 1 && sp.same(f.Pos.Line, l.Line) {
					used[fi], hit[li] = true, true
					break
				}
			}
		}
	}
	for li, l := range fe.Findings {
		if hit[li] {
			res.Hits = append(res.Hits, l)
		} else {
			res.Missed = append(res.Missed, l)
		}
	}
	for fi, f := range scored {
		if used[fi] {
			continue
		}
		// Several reports of one rule within one labelled statement count once.
		dup := false
		for li, l := range fe.Findings {
			if hit[li] && l.Rule == f.Rule && sp.same(f.Pos.Line, l.Line) {
				dup = true
				break
			}
		}
		for _, e := range res.Extra {
			if e.Rule == f.Rule && sp.same(f.Pos.Line, e.Pos.Line) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		res.Extra = append(res.Extra, f)
		for _, t := range fe.Not {
			if t.Rule == f.Rule && sp.same(f.Pos.Line, t.Line) {
				res.Traps = append(res.Traps, Trap{Label: t, Finding: f})
				break
			}
		}
	}
	return res
}
