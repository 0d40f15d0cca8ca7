package allowlist

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// maxInline is the longest value Suggest writes as a pinned value (artifact/port, or
// expected/found); longer or multi-line values are pinned by digest.
const maxInline = 160

// todoChanged starts the reason of an entry whose difference changed since its review:
// [Merge] keeps the reviewed reason after it, and [Parse] rejects it until a person has
// looked at the new value and removed it.
const todoChanged = "TODO changed since review: "

// suggestHeader is the comment over the entries [Suggest] prints and [Merge] adds.
const suggestHeader = "Added by `ledgercheck allowlist suggest`: review each difference, replace every TODO\nwith the reason it is accepted, and delete the entries you do not accept."

// Suggest writes a candidate allowlist for the semantic differences in diffs (see [Entries]),
// every reason "TODO". [Parse] rejects TODO reasons, so the file passes the gate only once a
// person has reviewed each difference and written why it is accepted.
func Suggest(w io.Writer, diffs []diff.Difference, causes map[string][]string) error {
	f := File{Version: Version, Entries: Entries(diffs, causes, "TODO")}
	fmt.Fprintln(w, "# Candidate allowlist entries (ledgercheck allowlist suggest). Review each difference, replace")
	fmt.Fprintln(w, "# every TODO with the reason it is accepted, and delete the entries you do not accept.")
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("writing suggestions: %w", err)
	}
	return enc.Close()
}

// Entries returns one entry per semantic difference of diffs, with the given reason, except that
// probe differences with the same causes (causes maps a probe's name to the catalog differences
// of what it reads, see parity) share one entry of kind probe with a probes list and the cause:
// one entry per cause, not per probe it moved. Cosmetic differences need no entry.
func Entries(diffs []diff.Difference, causes map[string][]string, reason string) []Entry {
	var out []Entry
	groups := map[string]int{} // cause -> index in out
	for _, d := range diffs {
		if d.Class == introspect.Cosmetic {
			continue
		}
		cause := strings.Join(causes[d.Object], "; ")
		if d.Kind != "probe" || d.Attr != "rows" || cause == "" {
			out = append(out, EntryFor(d, reason))
			continue
		}
		if i, ok := groups[cause]; ok {
			out[i].Probes[d.Object] = d.Digest()
			continue
		}
		groups[cause] = len(out)
		out = append(out, Entry{Kind: "probe", Cause: cause, Probes: map[string]string{d.Object: d.Digest()}, Reason: reason})
	}
	return out
}

// EntryText is e as the lines of one entry under a file's entries: ("- kind: ...", indented as
// Suggest writes it), ready to paste.
func EntryText(e Entry) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode([]Entry{e}); err != nil {
		return "" // an Entry always encodes
	}
	enc.Close()
	return b.String()
}

// EntryFor returns the entry that accepts exactly d, with the given reason: short single-line
// values are pinned as artifact and port (expected and found for a dimension mismatch), others
// by digest.
func EntryFor(d diff.Difference, reason string) Entry {
	e := Entry{Kind: d.Kind, Object: d.Object, Attr: d.Attr, Reason: reason}
	if a, b := d.Values(); inline(a) && inline(b) {
		if d.Kind == diff.KindDimension {
			e.Expected, e.Found = &a, &b
		} else {
			e.Artifact, e.Port = &a, &b
		}
	} else {
		e.Digest = d.Digest()
	}
	return e
}

func inline(s string) bool { return len(s) <= maxInline && !strings.ContainsAny(s, "\n\r") }

// Merged says what [Merge] did to an allowlist.
type Merged struct {
	// Kept counts the entries kept as they were.
	Kept int
	// Added are the new entries (reason TODO).
	Added []Entry
	// Updated are the entries whose difference changed since review, as they were before: their
	// pin now holds the new values, their reason is TODO followed by the reviewed reason.
	Updated []Change
	// Removed are the stale entries, taken out of the file.
	Removed []*Entry
}

// Merge merges an outcome into the allowlist f was parsed from (src; f nil and src empty for a
// new file) and returns the new file's text. It edits the YAML document tree (gopkg.in/yaml.v3
// nodes), so every entry it keeps keeps its reason, its layout and its comments:
//
//   - an entry that still accepts its differences is kept as it is;
//   - an entry whose difference changed since review ([Outcome.Changed]) is updated in place: its
//     pin takes the new values and its reason becomes "TODO changed since review: " and the
//     reviewed reason, which the gate rejects until a person has looked again;
//   - a stale entry is removed (Merged.Removed lists them, for the person to check);
//   - every difference no kept entry accepts gets a new entry with reason TODO ([Entries]:
//     probes moved by the same cause share one), under a comment that says so.
func Merge(f *File, src []byte, o *Outcome, causes map[string][]string) ([]byte, *Merged, error) {
	var doc yaml.Node
	if f == nil || len(bytes.TrimSpace(src)) == 0 {
		f = &File{Version: Version}
		src = fmt.Appendf(nil, "# allowlist.yaml: the reviewed differences between the artifact and its port.\n# Each entry pins one difference of `ledgercheck parity` with the reason a reviewer accepted it.\nversion: %d\nentries: []\n", Version)
	}
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s: reading the allowlist's document tree: not the mapping Parse read (%v)", f.Path, err)
	}
	root := doc.Content[0]
	seq := value(root, "entries")
	if seq == nil {
		root.Content = append(root.Content, scalar("entries"), &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"})
		seq = root.Content[len(root.Content)-1]
	}
	if seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" {
		*seq = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", HeadComment: seq.HeadComment, LineComment: seq.LineComment}
	}
	if seq.Kind != yaml.SequenceNode || len(seq.Content) != len(f.Entries) {
		return nil, nil, fmt.Errorf("%s: the document tree has %d entries where Parse read %d", f.Path, len(seq.Content), len(f.Entries))
	}
	res := &Merged{}
	stale := map[*Entry]bool{}
	for _, e := range o.Stale {
		stale[e] = true
	}
	changed := map[*Entry]Change{}
	for _, c := range o.Changed {
		changed[c.Entry] = c
	}
	removedLines := map[int]bool{}
	var keep []*yaml.Node
	for i := range f.Entries {
		e, n := &f.Entries[i], seq.Content[i]
		switch c, ok := changed[e]; {
		case stale[e]:
			res.Removed = append(res.Removed, e)
			removedLines[e.Line] = true
			if n.HeadComment != "" && i+1 < len(seq.Content) && seq.Content[i+1].HeadComment == "" {
				// The comment over a group of entries stays with the group.
				seq.Content[i+1].HeadComment = n.HeadComment
			}
			continue
		case ok:
			if err := update(n, c, o); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", f.Path, e.Line, err)
			}
			res.Updated = append(res.Updated, c)
		default:
			res.Kept++
		}
		keep = append(keep, n)
	}
	// Differences only removed entries accepted need entries again.
	var todo []diff.Difference
	for _, m := range o.Accepted {
		if !slices.ContainsFunc(m.Entries, func(l int) bool { return !removedLines[l] }) {
			todo = append(todo, m.Difference)
		}
	}
	todo = append(todo, o.Unreviewed...)
	res.Added = Entries(todo, causes, "TODO")
	for i, e := range res.Added {
		var n yaml.Node
		if err := n.Encode(&e); err != nil {
			return nil, nil, fmt.Errorf("encoding entry %s: %w", e.String(), err)
		}
		if i == 0 {
			n.HeadComment = suggestHeader
		}
		keep = append(keep, &n)
	}
	seq.Content = keep
	seq.Style = 0 // "entries: []" becomes a block sequence
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, fmt.Errorf("writing the allowlist: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, nil, fmt.Errorf("writing the allowlist: %w", err)
	}
	return spaceComments(out.Bytes()), res, nil
}

// update rewrites an entry node whose difference changed since review: the new pin in place of
// the old one, and the reason "TODO changed since review: " + the reviewed reason.
func update(n *yaml.Node, c Change, o *Outcome) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("entry is not a mapping")
	}
	if len(c.Entry.Probes) > 0 {
		probes := map[string]string{}
		for name, dg := range c.Entry.Probes {
			for _, m := range o.Accepted {
				if m.Difference.Object == name && m.Difference.Kind == "probe" && m.Difference.Digest() == dg {
					probes[name] = dg
				}
			}
		}
		for _, d := range c.Differences {
			probes[d.Object] = d.Digest()
		}
		var pn yaml.Node
		if err := pn.Encode(probes); err != nil {
			return err
		}
		set(n, "probes", &pn)
	} else {
		fresh := EntryFor(c.Differences[0], "")
		at := len(n.Content)
		for _, k := range []string{"digest", "port", "artifact", "found", "expected"} {
			if i := index(n, k); i >= 0 {
				n.Content = slices.Delete(n.Content, i, i+2)
				at = min(at, i)
			}
		}
		at = min(at, len(n.Content))
		var pin []*yaml.Node
		if fresh.Digest != "" {
			pin = []*yaml.Node{scalar("digest"), scalar(fresh.Digest)}
		} else {
			a, b := fresh.pins()
			ka, kb := "artifact", "port"
			if fresh.Kind == diff.KindDimension {
				ka, kb = "expected", "found"
			}
			pin = []*yaml.Node{scalar(ka), quoted(*a), scalar(kb), quoted(*b)}
		}
		n.Content = slices.Insert(n.Content, at, pin...)
	}
	r := value(n, "reason")
	if r == nil {
		return fmt.Errorf("entry has no reason")
	}
	if !IsTODO(r.Value) { // a draft's TODO stays as it is
		r.Value = todoChanged + r.Value
	}
	return nil
}

// index returns the index of key's node in mapping n, or -1.
func index(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// value returns key's value node in mapping n, or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	if i := index(n, key); i >= 0 {
		return n.Content[i+1]
	}
	return nil
}

// set replaces key's value in mapping n, or appends the pair.
func set(n *yaml.Node, key string, v *yaml.Node) {
	if i := index(n, key); i >= 0 {
		n.Content[i+1] = v
		return
	}
	n.Content = append(n.Content, scalar(key), v)
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// quoted is a value node as Suggest writes a pinned value: double-quoted when plain style would
// read as something else ("", "true").
func quoted(s string) *yaml.Node {
	var n yaml.Node
	_ = n.Encode(s) // encoding a string cannot fail
	return &n
}

// spaceComments puts back the blank line before each comment block that follows other lines
// (yaml.v3 keeps comments but drops blank lines), so that a merged file differs from the
// reviewed one only where entries changed.
func spaceComments(b []byte) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	prev := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if i > 0 && indent <= 2 && strings.HasPrefix(t, "#") && prev != "" && !strings.HasPrefix(prev, "#") {
			out.WriteString("\n")
		}
		out.WriteString(l)
		prev = t
	}
	return []byte(out.String())
}
