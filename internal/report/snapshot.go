package report

import (
	"cmp"
	"fmt"
	"github.com/ledgercheck/ledgercheck/introspect"
	"io"
	"slices"
	"strings"
)

// WriteSnapshotText writes a catalog snapshot for a person: one object per paragraph, its kind and
// identity, then each attribute that has a value (multi-line values indented below "attr: |"),
// containers before their contents.
func WriteSnapshotText(w io.Writer, s *introspect.Snapshot) error {
	tw := &textWriter{w: w}
	for i, o := range groupObjects(s.Facts()) {
		if i > 0 {
			tw.line("")
		}
		tw.line(o.ObjectRef.String())
		for _, f := range o.Facts {
			if f.Shown() != "" {
				tw.value("  ", f.Attr, f.Shown())
			}
		}
	}
	return tw.err
}

// WriteFootprintText writes a footprint for a person: "no changes", or each created object with
// its attributes, each changed attribute (before -> after, or both values indented when they
// span lines; cosmetic changes marked) and each dropped object.
func WriteFootprintText(w io.Writer, fp *introspect.Footprint) error {
	tw := &textWriter{w: w}
	if fp.Empty() {
		tw.line("no changes")
		return tw.err
	}
	first := true
	sep := func() {
		if !first {
			tw.line("")
		}
		first = false
	}
	var created []introspect.Fact
	for _, o := range fp.Created {
		created = append(created, o.Facts...)
	}
	for _, o := range groupObjects(created) {
		sep()
		tw.line("created " + o.ObjectRef.String())
		for _, f := range o.Facts {
			if f.Shown() != "" {
				tw.value("  ", f.Attr, f.Shown())
			}
		}
	}
	var last introspect.ObjectRef
	for _, c := range fp.Changed {
		if c.Ref() != last {
			sep()
			tw.line("changed " + c.Ref().String())
			last = c.Ref()
		}
		before, after := c.Before, c.After
		if c.BeforeDisplay != "" || c.AfterDisplay != "" {
			before, after = c.BeforeDisplay, c.AfterDisplay
		}
		label := c.Attr
		if c.Class == introspect.Cosmetic {
			label += " (cosmetic: whitespace or comments only)"
		}
		if !strings.Contains(before, "\n") && !strings.Contains(after, "\n") {
			tw.line(fmt.Sprintf("  %s: %s -> %s", label, quoteEmpty(before), quoteEmpty(after)))
			continue
		}
		tw.line("  " + label + ":")
		tw.value("    ", "before", before)
		tw.value("    ", "after", after)
	}
	for _, o := range fp.Dropped {
		sep()
		tw.line("dropped " + o.ObjectRef.String())
	}
	return tw.err
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// groupObjects groups sorted facts by object, in a reading order: containers before contents.
func groupObjects(facts []introspect.Fact) []introspect.ObjectFacts {
	order := map[string]int{}
	for i, k := range introspect.Kinds() { // containers before their contents
		order[k.Name] = i
	}
	var out []introspect.ObjectFacts
	idx := map[introspect.ObjectRef]int{}
	for _, f := range facts {
		i, ok := idx[f.Ref()]
		if !ok {
			i = len(out)
			idx[f.Ref()] = i
			out = append(out, introspect.ObjectFacts{ObjectRef: f.Ref()})
		}
		out[i].Facts = append(out[i].Facts, f)
	}
	// Facts come sorted by kind and object; a stable sort by kind order keeps objects sorted.
	slices.SortStableFunc(out, func(a, b introspect.ObjectFacts) int { return cmp.Compare(order[a.Kind], order[b.Kind]) })
	return out
}

// textWriter writes lines, keeping the first error.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(s string) {
	if t.err == nil {
		_, t.err = fmt.Fprintln(t.w, Visible(s))
	}
}

// value writes "attr: value", or for a multi-line value "attr: |" and the lines indented.
func (t *textWriter) value(indent, attr, v string) {
	if !strings.Contains(v, "\n") {
		t.line(indent + attr + ": " + v)
		return
	}
	t.line(indent + attr + ": |")
	for _, l := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
		t.line(indent + "    " + l)
	}
}
