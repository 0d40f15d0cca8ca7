package allowlist

import (
	"bytes"
	"strings"
	"testing"

	"ledgercheck/diff"
	"ledgercheck/internal/fault"
	"ledgercheck/introspect"
)

func TestParseErrorsCarryTheLine(t *testing.T) {
	entry := "  - kind: table\n    object: public.t\n    attr: rls\n    left: \"true\"\n    right: \"false\"\n"
	cases := []struct{ name, yaml, want string }{
		{"unknown key", "version: 1\nentries:\n" + entry + "    reasn: x\n", "a.yaml:8: unknown key reasn (an allowlist has"},
		{"unknown top key", "version: 1\nallow: []\n", "a.yaml:2: unknown key allow (an allowlist has"},
		{"version", "version: 2\nentries: []\n", "a.yaml:1: version 2 is not supported"},
		{"empty reason", "version: 1\nentries:\n" + entry + "    reason: \"  \"\n", "a.yaml:3: entry 1 (table public.t rls) has an empty reason"},
		{"missing reason", "version: 1\nentries:\n" + entry, "a.yaml:3: entry 1 (table public.t rls) has an empty reason"},
		{"todo", "version: 1\nentries:\n" + entry + "    reason: TODO\n", "a.yaml:3: entry 1 (table public.t rls) has reason TODO"},
		{"duplicate", "version: 1\nentries:\n" + entry + "    reason: a\n" + entry + "    reason: b\n", "a.yaml:9: entry 2 (table public.t rls) duplicates the entry at line 3"},
		{"bad pattern", "version: 1\nentries:\n  - kind: table\n    object_match: public.(t\n    attr: rls\n    digest: sha256:" + strings.Repeat("a", 64) + "\n    reason: r\n", "a.yaml:3: entry 1: object_match \"public.(t\" is not a valid regular expression"},
		{"bad digest", "version: 1\nentries:\n  - kind: table\n    object: public.t\n    digest: md5:1\n    reason: r\n", "a.yaml:3: entry 1 (table public.t) : digest \"md5:1\" is malformed"},
		{"not pinned", "version: 1\nentries:\n  - kind: table\n    object: public.t\n    attr: rls\n    left: \"true\"\n    reason: r\n", "does not pin the difference"},
		{"no kind", "version: 1\nentries:\n  - object: public.t\n    reason: r\n", "a.yaml:3: entry 1 has no kind"},
		{"syntax", "version: 1\nentries:\n  - kind: [\n", "a.yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("a.yaml", []byte(c.yaml))
			want := strings.Replace(c.want, " (table public.t) :", " (table public.t):", 1)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want it to contain %q", err, want)
			}
			if fault.KindOf(err) != fault.KindInput {
				t.Errorf("err is not an input error (exit 2)")
			}
		})
	}
}

func diffs() []diff.Difference {
	return []diff.Difference{
		{Kind: "table", Object: "public.a", Attr: "rls", Left: "true", Right: "false", Class: introspect.Semantic},
		{Kind: "table", Object: "public.b", Attr: "rls", Left: "true", Right: "false", Class: introspect.Semantic},
		{Kind: "function", Object: "public.f()", Attr: "body", Left: "select 1", Right: "select 2", Class: introspect.Semantic},
		{Kind: "function", Object: "public.g()", Attr: "body", Left: "x", Right: "x", LeftText: "x", RightText: "x -- c", Class: introspect.Cosmetic},
	}
}

func TestApplyAcceptsPinnedValuesOnly(t *testing.T) {
	src := `version: 1
entries:
  - kind: table
    object_match: public\.(a|b)
    attr: rls
    left: "true"
    right: "false"
    reason: role model
  - kind: function
    object: public.f()
    attr: body
    digest: ` + diff.Digest("select 1", "select 2") + `
    reason: reviewed
  - kind: table
    object: public.c
    attr: rls
    left: "true"
    right: "false"
    reason: nothing matches this
`
	f, err := Parse("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	o := f.Apply(diffs())
	if len(o.Accepted) != 3 || len(o.Unreviewed) != 0 || len(o.Cosmetic) != 1 {
		t.Errorf("accepted %d unreviewed %d cosmetic %d, want 3 0 1", len(o.Accepted), len(o.Unreviewed), len(o.Cosmetic))
	}
	if len(o.Stale) != 1 || o.Stale[0].Object != "public.c" || o.Stale[0].Line != 14 || o.Passed() {
		t.Errorf("stale = %+v, want the public.c entry at line 14, and a failure", o.Stale)
	}
	// The body entry pins the exact pair: a later change of either body is unreviewed.
	changed := diffs()
	changed[2].Right = "select 3"
	o = f.Apply(changed)
	if len(o.Unreviewed) != 1 || o.Unreviewed[0].Object != "public.f()" {
		t.Errorf("unreviewed = %+v, want the changed body", o.Unreviewed)
	}
	// A nil allowlist accepts nothing.
	var none *File
	if o := none.Apply(diffs()); len(o.Unreviewed) != 3 || len(o.Stale) != 0 {
		t.Errorf("nil allowlist: %+v", o)
	}
}

func TestSuggestIsRejectedUntilReviewed(t *testing.T) {
	var buf bytes.Buffer
	if err := Suggest(&buf, diffs()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "public.g()") {
		t.Errorf("cosmetic differences need no entry:\n%s", out)
	}
	if _, err := Parse("s.yaml", buf.Bytes()); err == nil || !strings.Contains(err.Error(), "reason TODO") {
		t.Fatalf("suggestions were accepted as they are: %v", err)
	}
	reviewed := strings.ReplaceAll(out, "reason: TODO", "reason: reviewed by a person")
	f, err := Parse("s.yaml", []byte(reviewed))
	if err != nil {
		t.Fatalf("%v\n%s", err, reviewed)
	}
	if o := f.Apply(diffs()); !o.Passed() || len(o.Accepted) != 3 {
		t.Errorf("reviewed suggestions: %+v", o)
	}
}
