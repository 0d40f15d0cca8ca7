package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Names, SQL text and server messages come from the migration under review, and a migration can
// name a table "evil\x1b[2Jname": written raw, that clears the reviewer's terminal, rings its
// bell, rewrites the line above (CR, cursor movement) or, with a bidirectional override
// (U+202E), shows a name other than the one the catalog holds. So no format writes such a
// character as it is. Every one goes through one predicate, [hidden]:
//
//   - text, github (annotations and job summary), html and the snapshot's text write a copy of
//     the report with every string made [Visible] ([visibleReport]): the character as an escape
//     a person reads, "\x1b", "\u202e";
//   - json and sarif are escaped by encoding/json (C0 controls as \u001b, invalid UTF-8 as
//     U+FFFD), and [escapeJSON] escapes what it leaves raw (DEL, C1 controls, bidirectional
//     controls) the same way, so a consumer decoding the document still gets the name the
//     catalog holds.

// hidden reports whether r is a character no report writes as it is: a C0 control other than
// tab and newline, DEL, a C1 control, or a bidirectional embedding, override or isolate.
func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Visible returns s with every [hidden] character written as an escape a person can read
// ("\x1b", "\x9b", "\u202e") and every byte that is not UTF-8 as "\xff". Tab and newline stay:
// diffs and function bodies span lines.
func Visible(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if hidden(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeJSON escapes, in a document encoding/json wrote, the [hidden] characters it leaves raw
// (DEL, C1 controls, bidirectional controls) as \u escapes. They are not ASCII, or DEL, so they
// only occur inside strings, where the escape decodes to the same character.
func escapeJSON(doc []byte) []byte {
	if !bytes.ContainsFunc(doc, hidden) {
		return doc
	}
	var b bytes.Buffer
	b.Grow(len(doc) + 16)
	for i := 0; i < len(doc); {
		r, n := utf8.DecodeRune(doc[i:])
		if hidden(r) && !(r < 0x20) { // encoding/json escaped C0 (and newlines within strings)
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.Write(doc[i : i+n])
		}
		i += n
	}
	return b.Bytes()
}

// visibleReport returns a copy of r in which every string, wherever it is in the model (names,
// messages, diffs, notes, file names, labels, servers), is [Visible]. It walks the model by
// reflection, so that a string field added later is covered too.
func visibleReport(r *Report) *Report {
	out := visibleValue(reflect.ValueOf(*r)).Interface().(Report)
	return &out
}

// visibleValue returns a copy of v with every string in it made Visible.
func visibleValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(Visible(v.String()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if f := out.Field(i); f.CanSet() {
				f.Set(visibleValue(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(visibleValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(visibleValue(it.Key()), visibleValue(it.Value()))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(visibleValue(v.Elem()))
		return out
	}
	return v
}
