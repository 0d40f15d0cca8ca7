package diff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// ANSI escapes used when color is on.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// Context is the number of unchanged lines shown around each change in a unified diff.
const Context = 3

type line struct {
	op   diffmatchpatch.Operation
	text string
}

// Unified renders a and b as a unified diff with the headers "--- aName" and "+++ bName" and
// hunks of [Context] lines. It returns "" when the texts are equal. With color, removed lines are
// red, added lines green and hunk headers cyan.
func Unified(a, b, aName, bName string, color bool) string {
	if a == b {
		return ""
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(ensureNL(a), ensureNL(b))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var all []line
	for _, d := range diffs {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				all = append(all, line{d.Type, strings.TrimSuffix(l, "\n")})
			}
		}
	}
	paint := func(c, s string) string {
		if !color {
			return s
		}
		return c + s + ansiReset
	}
	var out strings.Builder
	out.WriteString(paint(ansiBold, "--- "+aName) + "\n")
	out.WriteString(paint(ansiBold, "+++ "+bName) + "\n")
	// Hunks: runs of changes with up to Context equal lines around them; runs closer than
	// 2*Context equal lines are merged.
	i := 0
	for i < len(all) {
		if all[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		start := max(i-Context, 0)
		end := i
		for end < len(all) {
			if all[end].op != diffmatchpatch.DiffEqual {
				end++
				continue
			}
			j := end
			for j < len(all) && all[j].op == diffmatchpatch.DiffEqual {
				j++
			}
			if j < len(all) && j-end <= 2*Context {
				end = j
				continue
			}
			end = min(end+Context, len(all))
			break
		}
		aStart, bStart := lineNumbers(all, start)
		aLen, bLen := 0, 0
		for _, l := range all[start:end] {
			if l.op != diffmatchpatch.DiffInsert {
				aLen++
			}
			if l.op != diffmatchpatch.DiffDelete {
				bLen++
			}
		}
		out.WriteString(paint(ansiCyan, fmt.Sprintf("@@ -%s +%s @@", span(aStart, aLen), span(bStart, bLen))) + "\n")
		for _, l := range all[start:end] {
			switch l.op {
			case diffmatchpatch.DiffDelete:
				out.WriteString(paint(ansiRed, "-"+l.text) + "\n")
			case diffmatchpatch.DiffInsert:
				out.WriteString(paint(ansiGreen, "+"+l.text) + "\n")
			default:
				out.WriteString(" " + l.text + "\n")
			}
		}
		i = end
	}
	return out.String()
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// lineNumbers returns the 1-based line numbers in a and b of all[k].
func lineNumbers(all []line, k int) (int, int) {
	a, b := 1, 1
	for _, l := range all[:k] {
		if l.op != diffmatchpatch.DiffInsert {
			a++
		}
		if l.op != diffmatchpatch.DiffDelete {
			b++
		}
	}
	return a, b
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
