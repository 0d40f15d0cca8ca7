package rerun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// rowValuesUpTo is the largest table whose rows' values the rerun audit's digests keep, to
// show what a run changed; a larger table's finding counts its rows only.
const rowValuesUpTo = 200

// shownRows and shownValue bound a row finding's detail: at most shownRows rows, each value cut
// to shownValue characters.
const (
	shownRows  = 3
	shownValue = 40
)

// column is one column of a row, in table order.
type column struct{ name, value string }

// rowChanges says how the rows of a table differ between two digests that kept their values
// (as [introspect.ClassifyRows] pairs them): the columns that changed in the changed rows (in
// table order), and a detail of at most shownRows rows: a changed row as its label (its first
// content column that did not change, e.g. a key the fixture gave) and each changed column's
// value before and after; a row duplicated, added or lost as the values of its content columns
// (those without a default: not the generated ids and timestamps, which differ from run to
// run). Empty when the digests have no values.
func rowChanges(before, after introspect.TableDigest) (cols []string, detail string) {
	c := introspect.ClassifyRows(before, after)
	// Each kind of change is shown sorted by its text (the rows' own order is their hashes').
	var shown [4][]string
	seen := map[string]bool{}
	for _, p := range c.Changed {
		b, errB := columns(p[0].Values)
		a, errA := columns(p[1].Values)
		if errB != nil || errA != nil || len(b) != len(a) {
			return nil, ""
		}
		var label string
		var changes []string
		for i := range b {
			if b[i].name != a[i].name {
				return nil, ""
			}
			if b[i].value == a[i].value {
				if label == "" && slices.Contains(before.Content, b[i].name) {
					label = b[i].name + " " + cut(b[i].value)
				}
				continue
			}
			if !seen[b[i].name] {
				seen[b[i].name] = true
				cols = append(cols, b[i].name)
			}
			changes = append(changes, fmt.Sprintf("%s %s -> %s", b[i].name, cut(b[i].value), cut(a[i].value)))
		}
		shown[0] = append(shown[0], strings.TrimPrefix(label+": ", ": ")+strings.Join(changes, ", "))
	}
	for k, x := range []struct {
		word string
		rows []introspect.RowHash
	}{{"duplicated", c.Duplicated}, {"added", c.Added}, {"lost", c.Lost}} {
		for _, r := range x.rows {
			cs, err := columns(r.Values)
			if err != nil {
				return nil, ""
			}
			var vs []string
			for _, col := range cs {
				if len(before.Content) == 0 || slices.Contains(before.Content, col.name) {
					vs = append(vs, col.name+" "+cut(col.value))
				}
			}
			shown[k+1] = append(shown[k+1], x.word+": "+strings.Join(vs, ", "))
		}
	}
	var lines []string
	n := 0
	for _, s := range shown {
		slices.Sort(s)
		lines = append(lines, s...)
		n += len(s)
	}
	if len(lines) > shownRows {
		lines = append(lines[:shownRows], fmt.Sprintf("(%d more)", n-shownRows))
	}
	return cols, strings.Join(lines, "\n")
}

// columns decodes a row's JSON object, keeping the columns' order; a value is its JSON text
// (strings unquoted, null as NULL).
func columns(values string) ([]column, error) {
	if values == "" {
		return nil, fmt.Errorf("no values")
	}
	dec := json.NewDecoder(strings.NewReader(values))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []column
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		v := string(raw)
		var s string
		switch {
		case bytes.Equal(raw, []byte("null")):
			v = "NULL"
		case json.Unmarshal(raw, &s) == nil:
			v = s
		}
		out = append(out, column{name, v})
	}
	return out, nil
}

// cut shortens a value to shownValue characters, with an ellipsis.
func cut(v string) string {
	if utf8.RuneCountInString(v) <= shownValue {
		return v
	}
	return string([]rune(v)[:shownValue-1]) + "…"
}

// columnsWord is "column" or "columns" before a list of n column names.
func columnsWord(cols []string) string {
	if len(cols) == 1 {
		return "column"
	}
	return "columns"
}
