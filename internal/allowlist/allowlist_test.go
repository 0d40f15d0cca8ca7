package allowlist

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestParseErrorsCarryTheLine(t *testing.T) {
	entry := "  - kind: table\n    object: public.t\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n"
	cases := []struct{ name, yaml, want string }{
		{"unknown key", "version: 2\nentries:\n" + entry + "    reasn: x\n", "a.yaml:8:5: unknown key reasn (did you mean reason?)"},
		{"unknown top key", "version: 2\nallow: []\n", "a.yaml:2:1: unknown key allow (an allowlist has"},
		{"version", "version: 3\nentries: []\n", "a.yaml:1: version 3 is not supported"},
		{"empty reason", "version: 2\nentries:\n" + entry + "    reason: \"  \"\n", "a.yaml:3: entry 1 (table public.t rls) has an empty reason"},
		{"missing reason", "version: 2\nentries:\n" + entry, "a.yaml:3: entry 1 (table public.t rls) has an empty reason"},
		{"todo", "version: 2\nentries:\n" + entry + "    reason: TODO\n", "a.yaml:3: entry 1 (table public.t rls) has reason TODO"},
		{"duplicate", "version: 2\nentries:\n" + entry + "    reason: a\n" + entry + "    reason: b\n", "a.yaml:9: entry 2 (table public.t rls) duplicates the entry at line 3"},
		{"bad pattern", "version: 2\nentries:\n  - kind: table\n    object_match: public.(t\n    attr: rls\n    digest: sha256:" + strings.Repeat("a", 64) + "\n    reason: r\n", "a.yaml:3: entry 1: object_match \"public.(t\" is not a valid regular expression"},
		{"bad digest", "version: 2\nentries:\n  - kind: table\n    object: public.t\n    digest: md5:1\n    reason: r\n", "a.yaml:3: entry 1 (table public.t) : digest \"md5:1\" is malformed"},
		{"not pinned", "version: 2\nentries:\n  - kind: table\n    object: public.t\n    attr: rls\n    artifact: \"true\"\n    reason: r\n", "does not pin the difference"},
		{"no kind", "version: 2\nentries:\n  - object: public.t\n    reason: r\n", "a.yaml:3: entry 1 has no kind"},
		{"syntax", "version: 2\nentries:\n  - kind: [\n", "a.yaml:"},
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
		{Kind: "table", Object: "public.a", Attr: "rls", Artifact: "true", Port: "false", Class: introspect.Semantic},
		{Kind: "table", Object: "public.b", Attr: "rls", Artifact: "true", Port: "false", Class: introspect.Semantic},
		{Kind: "function", Object: "public.f()", Attr: "body", Artifact: "select 1", Port: "select 2", Class: introspect.Semantic},
		{Kind: "function", Object: "public.g()", Attr: "body", Artifact: "x", Port: "x", ArtifactText: "x", PortText: "x -- c", Class: introspect.Cosmetic},
	}
}

// Every unknown key of an allowlist is reported in one run, each at its line and column with
// its suggestion, as every invalid entry is.
func TestEveryUnknownKeyInOneRun(t *testing.T) {
	entry := "  - kind: table\n    object: public.t\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n"
	_, err := Parse("a.yaml", []byte("version: 2\nentries:\n"+entry+"    reasn: x\n"+entry+"    raeson: y\n    cuase: z\n"))
	var invalid *InvalidError
	if !errors.As(err, &invalid) || fault.KindOf(err) != fault.KindInput {
		t.Fatalf("err = %v, want an input error listing every unknown key", err)
	}
	want := []string{"a.yaml:8:5: unknown key reasn (did you mean reason?)", "a.yaml:14:5: unknown key raeson (did you mean reason?)", "a.yaml:15:5: unknown key cuase (did you mean cause?)"}
	if !slices.Equal(invalid.Lines, want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(invalid.Lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestApplyAcceptsPinnedValuesOnly(t *testing.T) {
	src := `version: 2
entries:
  - kind: table
    object_match: public\.(a|b)
    attr: rls
    artifact: "true"
    port: "false"
    reason: role model
  - kind: function
    object: public.f()
    attr: body
    digest: ` + diff.Digest("select 1", "select 2") + `
    reason: reviewed
  - kind: table
    object: public.c
    attr: rls
    artifact: "true"
    port: "false"
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
	// The body entry pins the exact pair: a later change of either body needs a new review,
	// reported once, as a change since review (not a stale entry plus a new difference).
	changed := diffs()
	changed[2].Port = "select 3"
	o = f.Apply(changed)
	if len(o.Changed) != 1 || o.Changed[0].Entry.Line != 9 || len(o.Changed[0].Differences) != 1 || o.Changed[0].Differences[0].Port != "select 3" ||
		len(o.Unreviewed) != 0 || len(o.Stale) != 1 || o.Passed() {
		t.Errorf("changed %+v unreviewed %+v stale %+v, want the body entry changed", o.Changed, o.Unreviewed, o.Stale)
	}
	// A nil allowlist accepts nothing.
	var none *File
	if o := none.Apply(diffs()); len(o.Unreviewed) != 3 || len(o.Stale) != 0 {
		t.Errorf("nil allowlist: %+v", o)
	}
}

func TestSuggestIsRejectedUntilReviewed(t *testing.T) {
	var buf bytes.Buffer
	if err := Suggest(&buf, diffs(), nil); err != nil {
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

// mergeSrc is a reviewed allowlist with comments: one entry that still matches, one whose
// difference changed since review, one stale, and a probes entry.
const mergeSrc = `# the reviewed differences
version: 2
entries:

  # [D4] the role model
  - kind: table
    object: public.a
    attr: rls
    artifact: "true"
    port: "false"
    reason: >-
      [D4] role model instead of RLS
  - kind: table
    object: public.b
    attr: rls
    artifact: "true"
    port: "false"
    reason: b's role model # why

  # gone
  - kind: table
    object: public.gone
    attr: rls
    artifact: "true"
    port: "false"
    reason: the port dropped it
`

func TestMergeKeepsReviewedEntriesAndAddsTODOs(t *testing.T) {
	f, err := Parse("a.yaml", []byte(mergeSrc))
	if err != nil {
		t.Fatal(err)
	}
	ds := diffs()
	ds[1].Port = "true, forced" // public.b rls: changed since review
	probe := func(name, l, r string) diff.Difference {
		return diff.Difference{Kind: "probe", Object: name, Attr: "rows", Artifact: l, Port: r, Class: introspect.Semantic}
	}
	ds = append(ds, probe("p1", "a\n1\n", "a\n2\n"), probe("p2", "b\n1\n", "b\n2\n"), probe("p3", "c\n", "d\n"))
	o := f.Apply(ds)
	if len(o.Changed) != 1 || o.Changed[0].Entry.Object != "public.b" || len(o.Stale) != 1 || o.Stale[0].Object != "public.gone" || len(o.Unreviewed) != 4 {
		t.Fatalf("changed %+v stale %+v unreviewed %d, want public.b changed, public.gone stale, 4 new", o.Changed, o.Stale, len(o.Unreviewed))
	}
	causes := map[string][]string{"p1": {"function public.f() body"}, "p2": {"function public.f() body"}}
	out, res, err := Merge(f, []byte(mergeSrc), o, causes)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if res.Kept != 1 || len(res.Updated) != 1 || len(res.Removed) != 1 || len(res.Added) != 3 {
		t.Errorf("kept %d updated %d removed %d added %d, want 1 1 1 3 (the body, the two probes of one cause, p3)", res.Kept, len(res.Updated), len(res.Removed), len(res.Added))
	}
	// The reviewed entry, its comment and its reason's style are as they were, and so is the file
	// around them.
	if !strings.HasPrefix(got, mergeSrc[:strings.Index(mergeSrc, "  - kind: table\n    object: public.b")]) {
		t.Errorf("the kept entry or the comments changed:\n%s", got)
	}
	for _, want := range []string{
		"port: true, forced\n    reason: 'TODO changed since review: b''s role model' # why\n",
		"  # Added by `ledgercheck allowlist suggest`",
		"    cause: function public.f() body\n    probes:\n      p1: " + diff.Digest("a\n1\n", "a\n2\n") + "\n      p2: ",
		"  - kind: probe\n    object: p3\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("merged file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "public.gone") || strings.Contains(got, "# gone") {
		t.Errorf("the stale entry (and its comment) is still there:\n%s", got)
	}
	// The gate rejects the file until every TODO is reviewed; then it passes.
	if _, err := Parse("a.yaml", out); err == nil || !strings.Contains(err.Error(), "starts with TODO") {
		t.Errorf("merged file parsed without review: %v", err)
	}
	reviewed := strings.ReplaceAll(strings.ReplaceAll(got, "TODO changed since review: ", ""), "reason: TODO", "reason: reviewed")
	g, err := Parse("a.yaml", []byte(reviewed))
	if err != nil {
		t.Fatalf("%v\n%s", err, reviewed)
	}
	if o := g.Apply(ds); !o.Passed() {
		t.Errorf("reviewed merge does not pass: unreviewed %v changed %v stale %v", o.Unreviewed, o.Changed, o.Stale)
	}
}

func TestMergeCreatesAFile(t *testing.T) {
	out, res, err := Merge(nil, nil, (*File)(nil).Apply(diffs()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 3 || !strings.Contains(string(out), "version: 2\nentries:\n\n  # Added by") {
		t.Errorf("added %d:\n%s", len(res.Added), out)
	}
}

func TestProbesEntryNeedsEveryProbe(t *testing.T) {
	dg := diff.Digest("x", "y")
	f, err := Parse("a.yaml", []byte("version: 2\nentries:\n  - kind: probe\n    cause: c\n    probes:\n      p1: "+dg+"\n      p2: "+dg+"\n    reason: r\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := func(n string) diff.Difference {
		return diff.Difference{Kind: "probe", Object: n, Attr: "rows", Artifact: "x", Port: "y", Class: introspect.Semantic}
	}
	if o := f.Apply([]diff.Difference{p("p1"), p("p2")}); !o.Passed() {
		t.Errorf("both probes: %+v", o)
	}
	if o := f.Apply([]diff.Difference{p("p1")}); len(o.Stale) != 1 || o.Passed() {
		t.Errorf("one probe no longer differs: stale %v, want the entry", o.Stale)
	}
	moved := p("p2")
	moved.Port = "z"
	if o := f.Apply([]diff.Difference{p("p1"), moved}); len(o.Changed) != 1 || len(o.Unreviewed) != 0 || len(o.Stale) != 0 {
		t.Errorf("p2 moved: changed %v unreviewed %v stale %v, want one change", o.Changed, o.Unreviewed, o.Stale)
	}
	for _, bad := range []string{
		"  - kind: table\n    probes: {p1: " + dg + "}\n    reason: r\n",
		"  - kind: probe\n    object: p1\n    probes: {p1: " + dg + "}\n    reason: r\n",
		"  - kind: probe\n    probes: {p1: md5}\n    reason: r\n",
		"  - kind: probe\n    object: p1\n    digest: " + dg + "\n    cause: c\n    reason: r\n",
	} {
		if _, err := Parse("a.yaml", []byte("version: 2\nentries:\n"+bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// TestMergeDraftKeepsItsTODO: suggest --write on a file it wrote before (a draft) does not put a
// second TODO before a reason that has one.
func TestMergeDraftKeepsItsTODO(t *testing.T) {
	src := "version: 2\nentries:\n  - kind: table\n    object: public.b\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: 'TODO changed since review: role model'\n"
	if _, err := Parse("a.yaml", []byte(src)); err == nil {
		t.Fatal("the gate accepted a TODO reason")
	}
	f, err := ParseDraft("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ds := diffs()[1:2]
	ds[0].Port = "true, forced"
	out, _, err := Merge(f, []byte(src), f.Apply(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), "TODO") != 1 || !strings.Contains(string(out), "port: true, forced") {
		t.Errorf("merged draft:\n%s", out)
	}
}

// TestPinKeysFollowTheKind: each kind takes its own pair, and no other version than the current
// one loads.
func TestPinKeysFollowTheKind(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"version: 1\nentries: []\n", "a.yaml:1: version 1 is not supported; this ledgercheck reads version: 2"},
		{"version: 2\nentries:\n  - {kind: dimension, object: f, attr: port, artifact: a, port: b, reason: r}\n", "a dimension difference is pinned by expected and found"},
		{"version: 2\nentries:\n  - {kind: table, object: t, attr: rls, expected: a, found: b, reason: r}\n", "a table difference is pinned by artifact and port"},
	} {
		if _, err := Parse("a.yaml", []byte(c.yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.yaml, err, c.want)
		}
	}
}

// TestSuggestPinsDimensionsByExpectedAndFound: a suggested entry for a dimension mismatch pins
// expected and found, never artifact and port.
func TestSuggestPinsDimensionsByExpectedAndFound(t *testing.T) {
	e := EntryFor(diff.Difference{Kind: diff.KindDimension, Object: "f", Attr: "port", Expected: "vector(1024)", Found: "vector(768)"}, "TODO")
	if e.Expected == nil || *e.Expected != "vector(1024)" || e.Found == nil || *e.Found != "vector(768)" || e.Artifact != nil || e.Port != nil {
		t.Errorf("entry = %+v", e)
	}
}
