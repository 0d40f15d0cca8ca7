package report

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"regexp"
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// sbsRow is one row of a side-by-side diff. A zero line number means the side is empty.
type sbsRow struct {
	// Kind is "eq", "del", "add" or "chg" (a deleted and an added line facing each other).
	Kind                string
	LeftNo, RightNo     int
	Left, Right         string
	leftSide, rightSide bool
}

// sideBySide returns the rows of a side-by-side diff for a finding: from its Left and Right
// texts, the data every format renders its diff from (a detail is shown as text, never parsed
// back into rows); nil when it has none.
func sideBySide(f finding.Finding) []sbsRow {
	if f.From != "" || f.To != "" {
		return sideBySideTexts(f.From, f.To)
	}
	return nil
}

// pairer accumulates deleted and added lines and emits them facing each other.
type pairer struct {
	rows     []sbsRow
	dels     []string
	adds     []string
	ln, rn   int
	delStart int
	addStart int
}

func (p *pairer) del(s string) {
	if len(p.dels) == 0 {
		p.delStart = p.ln + 1
	}
	p.dels = append(p.dels, s)
	p.ln++
}

func (p *pairer) add(s string) {
	if len(p.adds) == 0 {
		p.addStart = p.rn + 1
	}
	p.adds = append(p.adds, s)
	p.rn++
}

func (p *pairer) flush() {
	n := max(len(p.dels), len(p.adds))
	for i := 0; i < n; i++ {
		r := sbsRow{Kind: "chg"}
		if i < len(p.dels) {
			r.Left, r.LeftNo, r.leftSide = p.dels[i], p.delStart+i, true
		}
		if i < len(p.adds) {
			r.Right, r.RightNo, r.rightSide = p.adds[i], p.addStart+i, true
		}
		switch {
		case !r.rightSide:
			r.Kind = "del"
		case !r.leftSide:
			r.Kind = "add"
		}
		p.rows = append(p.rows, r)
	}
	p.dels, p.adds = nil, nil
}

func (p *pairer) same(s string) {
	p.flush()
	p.ln++
	p.rn++
	p.rows = append(p.rows, sbsRow{Kind: "eq", Left: s, Right: s, LeftNo: p.ln, RightNo: p.rn, leftSide: true, rightSide: true})
}

// sideBySideTexts diffs two texts line by line.
func sideBySideTexts(left, right string) []sbsRow {
	// Both sides end with a newline, so that the last lines compare equal when they are.
	if left != "" && !strings.HasSuffix(left, "\n") {
		left += "\n"
	}
	if right != "" && !strings.HasSuffix(right, "\n") {
		right += "\n"
	}
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(left, right)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	p := &pairer{}
	for _, d := range diffs {
		for _, l := range splitLines(d.Text) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				p.same(l)
			case diffmatchpatch.DiffDelete:
				p.del(l)
			case diffmatchpatch.DiffInsert:
				p.add(l)
			}
		}
	}
	p.flush()
	return p.rows
}

// splitLines splits text into lines without their newlines; a trailing newline ends the last
// line rather than starting an empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// unifiedText renders the difference of left and right as unified-diff lines with three lines
// of context and hunk headers, for the formats that show text only. Under a long changed line
// and the line that replaced it, a "~" line shows what changed in it, git word-diff style:
// "~ …DEFAULT [-30.0-]{+45.0+}, p_dependency…" (see [changeMarks]).
func unifiedText(left, right string) string {
	rows := sideBySideTexts(left, right)
	const context = 3
	keep := make([]bool, len(rows))
	for i, r := range rows {
		if r.Kind == "eq" {
			continue
		}
		for j := max(0, i-context); j <= min(len(rows)-1, i+context); j++ {
			keep[j] = true
		}
	}
	var b strings.Builder
	for i := 0; i < len(rows); {
		if !keep[i] {
			i++
			continue
		}
		j := i
		for j < len(rows) && keep[j] {
			j++
		}
		var lStart, rStart, lN, rN int
		for _, r := range rows[i:j] {
			if r.leftSide {
				if lStart == 0 {
					lStart = r.LeftNo
				}
				lN++
			}
			if r.rightSide {
				if rStart == 0 {
					rStart = r.RightNo
				}
				rN++
			}
		}
		b.WriteString("@@ -" + hunkRange(lStart, lN) + " +" + hunkRange(rStart, rN) + " @@\n")
		var plus, marks []string
		flush := func() {
			for _, p := range plus {
				b.WriteString("+" + p + "\n")
			}
			for _, m := range marks {
				b.WriteString("~" + m + "\n")
			}
			plus, marks = plus[:0], marks[:0]
		}
		for _, r := range rows[i:j] {
			if r.Kind == "eq" {
				flush()
				b.WriteString(" " + r.Left + "\n")
				continue
			}
			if r.leftSide {
				b.WriteString("-" + r.Left + "\n")
			}
			if r.rightSide {
				plus = append(plus, r.Right)
			}
			if m := changeMarks(r.Left, r.Right); r.Kind == "chg" && m != "" {
				marks = append(marks, m)
			}
		}
		flush()
		i = j
	}
	return b.String()
}

func hunkRange(start, n int) string {
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// Intra-line highlighting: a changed line is compared with the line that replaced it word by
// word, when they share enough to make it useful.
const (
	// markFrom is the length from which a changed line gets a "~" line in text: shorter lines
	// are read at a glance.
	markFrom = 60
	// markContext is how many unchanged characters a "~" line keeps around each change.
	markContext = 32
)

// intraLine returns the word differences of a deleted line a and the added line b facing it
// (a word is a run of letters, digits, "_", "." and "$", so a number or a name changes as a
// whole), or nil when they share less than half of the longer one (highlighting would mark
// everything).
func intraLine(a, b string) []diffmatchpatch.Diff {
	if a == "" || b == "" || a == b {
		return nil
	}
	// Each distinct word, space run or other character becomes one rune of a private alphabet,
	// so that the character diff of go-diff diffs words.
	ids := map[string]rune{}
	var words []string
	encode := func(s string) []rune {
		var out []rune
		for _, w := range wordRE.FindAllString(s, -1) {
			id, ok := ids[w]
			if !ok {
				id = rune(0xF0000 + len(words)) // a private use plane: never in the input as a token id
				ids[w] = id
				words = append(words, w)
			}
			out = append(out, id)
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	ds := dmp.DiffMainRunes(ra, rb, false)
	same := 0
	for i, d := range ds {
		var t strings.Builder
		for _, r := range d.Text {
			t.WriteString(words[r-0xF0000])
		}
		ds[i].Text = t.String()
		if d.Type == diffmatchpatch.DiffEqual {
			same += len(ds[i].Text)
		}
	}
	if 2*same < max(len(a), len(b)) {
		return nil
	}
	return ds
}

var spaces = regexp.MustCompile(`  +`)

// wordRE splits a line into the words intraLine compares.
var wordRE = regexp.MustCompile(`[\p{L}\p{N}_.$]+|\s+|.`)

// changeMarks returns what changed between a long deleted line and the line that replaced it,
// with the unchanged stretches cut to [markContext] characters around each change:
// "…DEFAULT [-30.0-]{+45.0+}, p_dependency…". "" for short lines, and for lines that share
// too little.
func changeMarks(a, b string) string {
	if max(len(a), len(b)) < markFrom {
		return ""
	}
	ds := intraLine(a, b)
	if ds == nil {
		return ""
	}
	var out strings.Builder
	for i, d := range ds {
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			out.WriteString("[-" + d.Text + "-]")
		case diffmatchpatch.DiffInsert:
			out.WriteString("{+" + d.Text + "+}")
		default:
			t := []rune(spaces.ReplaceAllString(d.Text, " ")) // a column's padding says nothing here
			head, tail := i > 0, i < len(ds)-1                // context after the previous change, before the next
			switch {
			case head && tail && len(t) > 2*markContext+1:
				out.WriteString(headOf(t) + "…" + tailOf(t))
			case head && !tail && len(t) > markContext:
				out.WriteString(headOf(t) + "…")
			case !head && tail && len(t) > markContext:
				out.WriteString("…" + tailOf(t))
			default:
				out.WriteString(string(t))
			}
		}
	}
	return out.String()
}

// headOf is the context kept after a change: at most markContext characters, cut after a word.
func headOf(t []rune) string {
	h := string(t[:markContext])
	if i := strings.LastIndexByte(h, ' '); i > 0 {
		h = h[:i+1]
	}
	return h
}

// tailOf is the context kept before a change: at most markContext characters, cut before a word.
func tailOf(t []rune) string {
	h := string(t[len(t)-markContext:])
	if i := strings.IndexByte(h, ' '); i >= 0 && i < len(h)-1 {
		h = h[i:]
	}
	return h
}
