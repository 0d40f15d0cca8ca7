package corpus

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ledgercheck/ledgercheck/internal/lint"
)

// Score is a rule's counts over the corpus.
type Score struct {
	Rule       string
	TP, FP, FN int
	// Traps counts the false positives that hit a `not` entry.
	Traps int
}

// Precision is TP/(TP+FP), 1 when nothing was reported.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP/(TP+FN), 1 when nothing was expected.
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Scores sums the results per rule, sorted by rule, and the total.
func Scores(results []FileResult) ([]Score, Score) {
	by := map[string]*Score{}
	get := func(r string) *Score {
		if by[r] == nil {
			by[r] = &Score{Rule: r}
		}
		return by[r]
	}
	for _, r := range results {
		for _, l := range r.Hits {
			get(l.Rule).TP++
		}
		for _, l := range r.Missed {
			get(l.Rule).FN++
		}
		for _, f := range r.Extra {
			get(f.Rule).FP++
		}
		for _, t := range r.Traps {
			get(t.Finding.Rule).Traps++
		}
	}
	total := Score{Rule: "total"}
	var out []Score
	for _, s := range by {
		out = append(out, *s)
		total.TP += s.TP
		total.FP += s.FP
		total.FN += s.FN
		total.Traps += s.Traps
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out, total
}

// WriteTable prints the per-rule table, the total, and every missed label and trap hit.
func WriteTable(w io.Writer, results []FileResult) error {
	if err := writeScores(w, results); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range results {
		for _, l := range r.Missed {
			fmt.Fprintf(&b, "missed  %s:%d %s (%s)\n", r.Name, l.Line, l.Rule, l.Note)
		}
		for _, t := range r.Traps {
			fmt.Fprintf(&b, "trap    %s:%d %s (%s)\n", r.Name, t.Label.Line, t.Label.Rule, t.Label.Note)
		}
		for _, f := range r.Extra {
			if !isTrap(r, f) {
				fmt.Fprintf(&b, "extra   %s:%d %s: %s\n", r.Name, f.Pos.Line, f.Rule, f.Message)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func isTrap(r FileResult, f interface{ String() string }) bool {
	for _, t := range r.Traps {
		if t.Finding.String() == f.String() {
			return true
		}
	}
	return false
}

// writeScores prints the per-rule table and the total.
func writeScores(w io.Writer, results []FileResult) error {
	scores, total := Scores(results)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rule\tTP\tFP\tFN\ttraps\tprecision\trecall\t")
	for _, s := range append(scores, total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.3f\t%.3f\t\n", s.Rule, s.TP, s.FP, s.FN, s.Traps, s.Precision(), s.Recall())
	}
	return tw.Flush()
}

// models are the kinds of project the installed audit answers for, as the per-model tables
// name them.
var models = []struct{ name, what string }{
	{lint.NewDefaults, "hosted projects: new tables get no privileges for the API roles"},
	{lint.OldDefaults, "self-hosted projects: the old default privileges grant ALL to the API roles"},
}

// WriteModelTables prints the per-rule table of each kind of project the installed audit answers
// for ([ForModel]): the findings that hold there against the labels that do.
func WriteModelTables(w io.Writer, results []FileResult) error {
	for _, m := range models {
		if _, err := fmt.Fprintf(w, "\nprivilege model %s (%s)\n", m.name, m.what); err != nil {
			return err
		}
		if err := writeScores(w, ForModel(results, m.name)); err != nil {
			return err
		}
	}
	return nil
}
