// Package nouns writes the counted nouns of ledgercheck's notes and messages ("1 table",
// "3 policies"), in one place.
package nouns

import (
	"strconv"
	"strings"
)

// Count is n and word, plural unless n is 1: "1 row", "2 rows", "2 policies", "2 indexes",
// "2 keys", "2 statistics". word is a singular English noun phrase whose last word takes the
// plural; one that ends in s (statistics, privileges) is the same in both numbers.
func Count(n int, word string) string {
	return strconv.Itoa(n) + " " + Plural(n, word)
}

// Plural is word, in the plural unless n is 1 (without the number).
func Plural(n int, word string) string {
	if n == 1 || word == "" {
		return word
	}
	last := word[len(word)-1]
	switch {
	case last == 'y' && len(word) > 1 && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
		return word[:len(word)-1] + "ies"
	case last == 's': // statistics, default privileges: the same in both numbers
		return word
	case last == 'x' || strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "sh"):
		return word + "es"
	}
	return word + "s"
}
