package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// controls are the characters a hostile name carries: C0 controls (ESC of a terminal sequence,
// BEL, CR, backspace, NUL), DEL, C1 controls (CSI, NEL), bidirectional overrides and isolates,
// and a byte that is not UTF-8 (an 8-bit CSI).
var controls = []string{"\x1b[2J", "\a", "\r", "\b", "\x00", "\x7f", "\u009b", "\u0085", "\u202e", "\u2066", "\xff", "\x9b"}

// poisoned is every control character above in one string, around a readable name.
var poisoned = "evil" + strings.Join(controls, "x") + "name"

// rawControl returns a description of the first character in out that no format may write raw,
// or "": C0 controls but tab and newline, DEL, C1 controls, the bidirectional controls and bytes
// that are not UTF-8. It is written independently of the implementation's predicate.
func rawControl(out []byte) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return fmt.Sprintf("byte %#x (not UTF-8) at %d", out[i], i)
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("%U at %d", r, i)
		}
		i += n
	}
	return ""
}

// poison sets every string reachable from v (a pointer) to poisoned, wherever in the model it
// is, so that a string field added later is covered without changing this test.
func poison(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			poison(v.Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(poisoned + v.String())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			poison(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			poison(v.Index(i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(it.Key().Type()).Elem()
			k.Set(it.Key())
			poison(k.Addr())
			m.SetMapIndex(k, it.Value())
		}
		if v.CanSet() {
			v.Set(m)
		}
	}
}

// TestNoFormatWritesAControlCharacter poisons every string of the sample report (names,
// messages, objects, diffs, both sides of a difference, notes, counts, labels, files, servers)
// with C0 and C1 controls, bidirectional overrides and a byte that is not UTF-8, and writes it in
// every format: none of them holds one raw. The JSON documents still decode to the poisoned
// strings, so a consumer gets the name the catalog holds.
func TestNoFormatWritesAControlCharacter(t *testing.T) {
	r := sample()
	poison(reflect.ValueOf(r))
	r.Finish()
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return WriteReportText(b, r, false) }},
		{"text colored", func(b *bytes.Buffer) error { return WriteReportText(b, r, true) }},
		{"compact text", func(b *bytes.Buffer) error { return WriteText(b, r.Findings()) }},
		{"github", func(b *bytes.Buffer) error { return WriteGitHub(b, r) }},
		{"step summary", func(b *bytes.Buffer) error { return WriteStepSummary(b, r) }},
		{"html", func(b *bytes.Buffer) error { return WriteHTML(b, r) }},
		{"json", func(b *bytes.Buffer) error { return WriteReportJSON(b, r) }},
		{"sarif", func(b *bytes.Buffer) error { return WriteSARIF(b, r) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		out := b.Bytes()
		if f.name == "text colored" { // its own escapes are SGR sequences; nothing else may be
			out = regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAll(out, nil)
		}
		if what := rawControl(out); what != "" {
			t.Errorf("%s writes a raw control character: %s", f.name, what)
		}
		if !bytes.Contains(out, []byte(`evil`)) || !(bytes.Contains(out, []byte(`\x1b[2J`)) || bytes.Contains(out, []byte(`\u001b[2J`))) {
			t.Errorf("%s does not show the escaped name", f.name)
		}
	}
	var doc struct {
		Phases []struct {
			Findings []struct {
				Object string `json:"object"`
			} `json:"findings"`
		} `json:"phases"`
	}
	var b bytes.Buffer
	if err := WriteReportJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// encoding/json has no way to carry a byte that is not UTF-8: it becomes U+FFFD; every
	// character is decoded back as it was.
	want := strings.ToValidUTF8(poisoned, "\uFFFD")
	if got := doc.Phases[1].Findings[0].Object; !strings.HasPrefix(got, want) {
		t.Errorf("json object decodes to %q, want it to start with %q", got, want)
	}
}

// TestSnapshotFormatsWriteNoControlCharacter: the snapshot command's text and JSON show catalog
// names too.
func TestSnapshotFormatsWriteNoControlCharacter(t *testing.T) {
	s := &introspect.Snapshot{Tables: []introspect.Table{{Schema: "public", Name: "t", Comment: "c"}},
		Functions: []introspect.Function{{Schema: "public", Name: "f", Body: "SELECT 1;\nSELECT 2"}}}
	poison(reflect.ValueOf(s))
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return WriteSnapshotText(b, s) }},
		{"json", func(b *bytes.Buffer) error { return WriteSnapshotJSON(b, "ledgercheck", poisoned, s) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if what := rawControl(b.Bytes()); what != "" {
			t.Errorf("snapshot %s writes a raw control character: %s", f.name, what)
		}
		if !bytes.Contains(b.Bytes(), []byte("evil")) {
			t.Errorf("snapshot %s does not show the table: %q", f.name, b.String())
		}
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain name":           "plain name",
		"two\nlines\tand tab":  "two\nlines\tand tab",
		"evil\x1b[2Jname\a":    `evil\x1b[2Jname\x07`,
		"cr\rover":             `cr\x0dover`,
		"c1 \u009b csi":        `c1 \x9b csi`,
		"bidi \u202egnp.exe":   `bidi \u202egnp.exe`,
		"bad \xff byte":        `bad \xff byte`,
		"ünïcödé ok, € and 名前": "ünïcödé ok, € and 名前",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
