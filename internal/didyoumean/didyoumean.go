// Package didyoumean is the one spelling suggestion of ledgercheck: the flag, rule id or
// configuration key closest to a misspelt one, by Levenshtein distance (a swap of two adjacent
// characters counting as one edit), as git and cobra (for commands) suggest.
package didyoumean

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate nearest to word, or "" when none is near enough: at most a third
// of word's length in edits (at least 1, at most 3), or a candidate that word is a prefix of
// (3 characters at least). Ties go to the first candidate; the comparison ignores case, and
// word itself is never suggested.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	limit := min(max(utf8.RuneCountInString(w)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := Distance(w, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" && utf8.RuneCountInString(w) >= 3 {
		for _, c := range candidates {
			if c != word && strings.HasPrefix(strings.ToLower(c), w) {
				return c
			}
		}
	}
	return best
}

// Hint is " (did you mean X?)" for the candidate [Closest] finds, else "": the suffix of an
// error message that names the misspelt word.
func Hint(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// Distance is the Levenshtein distance between a and b, in runes, with a swap of two adjacent
// runes counted as one edit (the optimal string alignment distance): the fewest insertions,
// deletions, substitutions and transpositions that turn one into the other. "quite" is one edit
// from "quiet", as a typist sees it.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j]; three rows are enough.
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		before, prev, cur := rows[(i+1)%3], rows[(i+2)%3], rows[i%3]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
	}
	return rows[len(ra)%3][len(rb)]
}
