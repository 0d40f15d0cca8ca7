package allowlist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/yamltext"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Version is the allowlist format version this package writes: entries pin the artifact's and
// the port's values under artifact: and port:.
const Version = 2

// File is a loaded allowlist.
type File struct {
	// Path is the file as named by the caller, used in every error and report.
	Path string `yaml:"-"`
	// Version is the file's format version, [Version].
	Version int `yaml:"version"`
	// Entries are the reviewed differences, in file order.
	Entries []Entry `yaml:"entries"`
}

// Entry is one reviewed difference. It names the difference by kind, object and attribute, and
// pins its values: either Artifact and Port exactly (Expected and Found for a dimension
// mismatch), or Digest (see [diff.Difference.Digest]).
type Entry struct {
	// Kind is the object kind (table, column, function, policy, role, probe, dimension, ...).
	Kind string `yaml:"kind"`
	// Object is the object's identity, exactly as the report prints it.
	Object string `yaml:"object,omitempty"`
	// ObjectMatch, instead of Object, is a regular expression (RE2, anchored at both ends) that
	// the identity must match, for one difference repeated on several objects.
	ObjectMatch string `yaml:"object_match,omitempty"`
	// Attr is the attribute; empty (or absent) means the object itself, present in one variant only.
	Attr string `yaml:"attr,omitempty"`
	// Artifact and Port are the artifact's and the port's normalized values ("" for absent).
	Artifact *string `yaml:"artifact,omitempty"`
	Port     *string `yaml:"port,omitempty"`
	// Expected and Found pin a dimension mismatch (kind dimension): the type the variant's
	// dimension requires and the one its file declares.
	Expected *string `yaml:"expected,omitempty"`
	Found    *string `yaml:"found,omitempty"`
	// Digest is "sha256:<hex>" of the two values, for long values such as function bodies.
	Digest string `yaml:"digest,omitempty"`
	// Cause says which change moved the probes of a Probes entry (`allowlist suggest` writes the
	// catalog differences of the objects the probes read). For the reviewer; not matched.
	Cause string `yaml:"cause,omitempty"`
	// Probes, instead of Object and a pin, accepts several probes' differences (kind probe) at
	// once: each probe's name with the digest of its two results. One entry covers the probes
	// one change moved; it is in use only when every probe it lists differs exactly so.
	Probes map[string]string `yaml:"probes,omitempty"`
	// Reason says why a reviewer accepted the difference. Required; "TODO" is not a reason.
	Reason string `yaml:"reason"`

	// Line is the entry's line in the file.
	Line int `yaml:"-"`
	re   *regexp.Regexp
	// reviewed are the texts (as the report shows them) of the values of an entry pinned by
	// digest, from the reviewed file ([File.AttachReviewed]); nil when the file does not have them.
	reviewed *[2]string
}

// String names the entry for reports: "kind object attr", a function's long argument list
// shortened to its count (the entry's line says which entry it is).
func (e *Entry) String() string {
	if len(e.Probes) > 0 {
		return fmt.Sprintf("probe %s (%d probes)", strings.Join(e.probeNames(), ", "), len(e.Probes))
	}
	obj := finding.ShortIdentity(e.Object)
	if obj == "" {
		obj = "~" + e.ObjectMatch
	}
	s := e.Kind + " " + obj
	if e.Attr != "" {
		s += " " + e.Attr
	}
	return s
}

// Matches reports whether the entry accepts d.
func (e *Entry) Matches(d diff.Difference) bool {
	if len(e.Probes) > 0 {
		return d.Kind == "probe" && d.Attr == "rows" && e.Probes[d.Object] == d.Digest()
	}
	if e.Kind != d.Kind || e.Attr != d.Attr {
		return false
	}
	if e.re != nil {
		if !e.re.MatchString(d.Object) {
			return false
		}
	} else if e.Object != d.Object {
		return false
	}
	if e.Digest != "" {
		return e.Digest == d.Digest()
	}
	a, b := e.pins()
	da, db := d.Values()
	return a != nil && b != nil && *a == da && *b == db
}

// pins returns the entry's pinned pair: Expected and Found for a dimension mismatch, else
// Artifact and Port.
func (e *Entry) pins() (a, b *string) {
	if e.Kind == diff.KindDimension {
		return e.Expected, e.Found
	}
	return e.Artifact, e.Port
}

// pinKeys names the keys of the pair an entry of kind pins.
func pinKeys(kind string) string {
	if kind == diff.KindDimension {
		return "expected and found"
	}
	return "artifact and port"
}

// rawFile is an allowlist as decoded, before its entries are checked.
type rawFile struct {
	Version int     `yaml:"version"`
	Entries []Entry `yaml:"entries"`
}

// checkPair checks that e pins the pair its kind takes; "" or what is wrong.
func checkPair(e Entry) string {
	dim := e.Kind == diff.KindDimension
	if dim && (e.Artifact != nil || e.Port != nil) || !dim && (e.Expected != nil || e.Found != nil) {
		return "pins the wrong pair: a " + e.Kind + " difference is pinned by " + pinKeys(e.Kind) + " (expected and found pin a dimension mismatch only)"
	}
	return ""
}

// Load reads and validates the allowlist at path. Every error is a [fault.Input] error (exit 2):
// "path: message" for a file that cannot be read (see [input.ReadFile]), else
// "path:line: what is wrong and what to do".
func Load(path string) (*File, error) {
	data, err := input.ReadFile(path, input.Allowlist)
	if err != nil {
		return nil, fault.Input(err)
	}
	return Parse(path, data)
}

// Parse decodes and validates an allowlist read from the file called path. Unknown keys,
// a missing or unknown version, entries without a kind, an object or pinned values, malformed
// patterns, empty or TODO reasons and duplicate entries are errors with the file's line number.
func Parse(path string, data []byte) (*File, error) { return parse(path, data, false) }

// ParseDraft is [Parse] for an allowlist under review: a reason that is TODO (or starts with
// it, as `allowlist suggest --write` writes them) is accepted, so that suggest can merge into a
// file whose new entries are not reviewed yet. The gate never reads a draft.
func ParseDraft(path string, data []byte) (*File, error) { return parse(path, data, true) }

// entryKeys are the keys of an allowlist entry of the current version.
var entryKeys = []string{"kind", "object", "object_match", "attr", "artifact", "port", "expected", "found", "digest", "probes", "cause", "reason"}

func parse(path string, data []byte, draft bool) (*File, error) {
	f := &File{Path: path}
	lines := bytes.Count(data, []byte("\n")) + 1
	fail := func(line int, format string, args ...any) error {
		line = min(max(line, 1), lines) // yaml.v3 puts an empty document after "---" on the next line
		return fault.Input(fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...)))
	}
	if line, what := yamltext.Check(data); line > 0 {
		return nil, fail(line, "%s", what)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var raw rawFile
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(1, "the allowlist is empty; start it with \"version: %d\"", Version)
		}
		if keys := unknownKeys(path, err, data, lines); len(keys) > 1 {
			return nil, fault.Input(&InvalidError{Path: path, Lines: keys})
		}
		return nil, fault.Input(errors.New(decodeError(path, yamltext.Locate(err, data), lines)))
	}
	f.Version = raw.Version
	f.Entries = raw.Entries
	pairErr := make([]string, len(raw.Entries))
	for i := range raw.Entries {
		pairErr[i] = checkPair(raw.Entries[i])
	}
	// Lines: decode again as a node tree.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 {
		root := doc.Content[0]
		versionLine := root.Line
		for i := 0; i+1 < len(root.Content); i += 2 {
			switch root.Content[i].Value {
			case "version":
				versionLine = root.Content[i].Line
			case "entries":
				for j, n := range root.Content[i+1].Content {
					if j < len(f.Entries) {
						f.Entries[j].Line = n.Line
					}
				}
			}
		}
		if f.Version != Version {
			return nil, fail(versionLine, "version %d is not supported; this ledgercheck reads version: %d", f.Version, Version)
		}
	}
	seen := map[string]int{}
	var invalid []string
	for i := range f.Entries {
		e := &f.Entries[i]
		if msg := checkEntry(e, i, pairErr[i], draft, seen); msg != "" {
			invalid = append(invalid, fmt.Sprintf("%s:%d: %s", path, min(max(e.Line, 1), lines), msg))
		}
	}
	if len(invalid) > 0 {
		return nil, fault.Input(&InvalidError{Path: path, Lines: invalid})
	}
	return f, nil
}

// decodeError is "path:line[:col]: msg" for the decoding error at p, an unknown key with the
// nearest key as a suggestion (or the keys there are).
func decodeError(path string, p yamltext.Position, lines int) string {
	if p.UnknownKey != "" {
		p.Msg = "unknown key " + p.UnknownKey + " (an allowlist has version and entries; an entry takes " + strings.Join(entryKeys, ", ") + ")"
		if c := didyoumean.Closest(p.UnknownKey, append([]string{"version", "entries"}, entryKeys...)); c != "" {
			p.Msg = "unknown key " + p.UnknownKey + " (did you mean " + c + "?)"
		}
	}
	p.Msg = strings.ReplaceAll(p.Msg, "into allowlist.rawFile", fmt.Sprintf("into an allowlist (a mapping that starts with version: %d)", Version))
	p.Msg = yamltext.Plain(p.Msg)
	p.Line = min(max(p.Line, 1), lines)
	return p.At(path)
}

// unknownKeys returns a line per unknown key when err, the strict decoder's, is about unknown
// keys only (it reports every one of them), so that one run names them all; else nil.
func unknownKeys(path string, err error, data []byte, lines int) []string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return nil
	}
	out := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		p := yamltext.Locate(&yaml.TypeError{Errors: []string{e}}, data)
		if p.UnknownKey == "" {
			return nil
		}
		out = append(out, decodeError(path, p, lines))
	}
	return out
}

// InvalidError is an allowlist with invalid entries: every one of them, so that one run of
// `allowlist check` lists them all. Its message is the first, and how many more there are.
type InvalidError struct {
	Path string
	// Lines are "path:line: what is wrong and what to do", one per invalid entry, in file order.
	Lines []string
}

func (e *InvalidError) Error() string {
	if len(e.Lines) == 1 {
		return e.Lines[0]
	}
	return fmt.Sprintf("%s (and %d more invalid entries: `ledgercheck allowlist check %s` lists them all)", e.Lines[0], len(e.Lines)-1, e.Path)
}

// checkEntry says what is wrong with the i-th entry (pairErr: what [checkPair] said of it), or ""; seen holds the lines of the valid entries before it, by key, and gets
// this one's.
func checkEntry(e *Entry, i int, pairErr string, draft bool, seen map[string]int) string {
	where := fmt.Sprintf("entry %d", i+1)
	if pairErr != "" {
		return where + " " + pairErr
	}
	if err := e.checkProbes(); err != "" {
		return where + " " + err
	}
	switch {
	case e.Kind == "":
		return where + " has no kind; copy kind, object and attr from the report (or `ledgercheck allowlist suggest`)"
	case len(e.Probes) > 0:
	case e.Object == "" && e.ObjectMatch == "":
		return fmt.Sprintf("%s (%s) has neither object nor object_match", where, e.Kind)
	case e.Object != "" && e.ObjectMatch != "":
		return fmt.Sprintf("%s (%s) has both object and object_match; use one", where, e.Kind)
	}
	if e.ObjectMatch != "" {
		re, err := regexp.Compile(`^(?:` + e.ObjectMatch + `)$`)
		if err != nil {
			return fmt.Sprintf("%s: object_match %q is not a valid regular expression: %v", where, e.ObjectMatch, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		e.re = re
	}
	where += " (" + e.String() + ")"
	a, b := e.pins()
	switch {
	case len(e.Probes) > 0:
	case e.Digest != "" && (a != nil || b != nil):
		return fmt.Sprintf("%s has both digest and %s values; pin the difference with one of them", where, pinKeys(e.Kind))
	case e.Digest == "" && (a == nil || b == nil):
		return fmt.Sprintf("%s does not pin the difference: give both %s (\"\" for absent) or a digest", where, pinKeys(e.Kind))
	case e.Digest != "" && !validDigest(e.Digest):
		return fmt.Sprintf("%s: digest %q is malformed; want sha256: and 64 hex digits, as `ledgercheck allowlist suggest` prints", where, e.Digest)
	}
	reason := strings.TrimSpace(e.Reason)
	switch {
	case reason == "":
		return where + " has an empty reason; write why a reviewer accepted this difference"
	case draft && IsTODO(reason):
	case strings.EqualFold(strings.TrimRight(reason, ".:! "), "todo"):
		return where + " has reason TODO; a person must review the difference and write the reason"
	case IsTODO(reason):
		return where + " has a reason that starts with TODO; review the difference, then write the reason without the TODO"
	}
	key := e.key()
	if prev, ok := seen[key]; ok {
		return fmt.Sprintf("%s duplicates the entry at line %d; remove one", where, prev)
	}
	seen[key] = e.Line
	return ""
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func validDigest(s string) bool { return digestRE.MatchString(s) }

func (e *Entry) key() string {
	deref := func(p *string) string {
		if p == nil {
			return "\x01"
		}
		return *p
	}
	a, b := e.pins()
	return strings.Join([]string{e.Kind, e.Object, e.ObjectMatch, e.Attr, deref(a), deref(b), e.Digest, strings.Join(e.probeNames(), "\x01")}, "\x00")
}

// IsTODO reports whether a reason is not one yet: its first word is TODO ("TODO", "TODO: ...",
// and the "TODO changed since review: ..." that `allowlist suggest --write` writes over a
// reviewed reason whose difference changed).
func IsTODO(reason string) bool {
	f := strings.Fields(reason)
	return len(f) > 0 && strings.EqualFold(strings.TrimRight(f[0], ".:!,;"), "todo")
}

// probeNames returns the names of a Probes entry's probes, sorted.
func (e *Entry) probeNames() []string {
	names := make([]string, 0, len(e.Probes))
	for n := range e.Probes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// checkProbes validates a Probes entry (and a Cause without one); "" when valid.
func (e *Entry) checkProbes() string {
	if len(e.Probes) == 0 {
		if e.Cause != "" {
			return "has a cause but no probes; cause goes with a probes list"
		}
		return ""
	}
	switch {
	case e.Kind != "probe":
		return "lists probes but its kind is " + strconv.Quote(e.Kind) + "; a probes list needs kind: probe"
	case e.Object != "" || e.ObjectMatch != "" || e.Digest != "" || e.Artifact != nil || e.Port != nil || e.Expected != nil || e.Found != nil:
		return "has probes and object, object_match, digest or pinned values; a probes list names the probes and their digests itself"
	case e.Attr != "" && e.Attr != "rows":
		return "has attr " + strconv.Quote(e.Attr) + "; a probe's attribute is rows"
	}
	for _, n := range e.probeNames() {
		if !validDigest(e.Probes[n]) {
			return fmt.Sprintf("probe %s: digest %q is malformed; want sha256: and 64 hex digits, as `ledgercheck allowlist suggest` prints", n, e.Probes[n])
		}
	}
	return ""
}

// Match is a difference with the entries that accept it.
type Match struct {
	Difference diff.Difference `json:"difference"`
	// Entries are the lines of the entries that accept it.
	Entries []int `json:"entries"`
	// Reason is the first accepting entry's reason.
	Reason string `json:"reason"`
}

// Change is a reviewed difference that changed since its review: an entry that accepts no
// difference any more, and the unreviewed difference(s) of the same kind, object and attribute
// (for a probes entry, of its probes) that took its place. One finding, not a stale entry
// plus a new difference.
type Change struct {
	Entry       *Entry
	Differences []diff.Difference
}

// Reviewed returns the values the entry was reviewed with (the artifact's and the port's, or a
// dimension mismatch's expected and found), or pinned false for an entry that pins a digest
// (the values themselves are not in the allowlist).
func (c Change) Reviewed() (first, second string, pinned bool) {
	if a, b := c.Entry.pins(); a != nil && b != nil {
		return *a, *b, true
	}
	return "", "", false
}

// ReviewedText returns the texts of the values an entry pinned by digest was reviewed with, as
// the report showed them ([diff.Difference.Shown]), when the reviewed file ([ReviewedPath]) kept
// them.
func (c Change) ReviewedText() (artifact, port string, ok bool) {
	if r := c.Entry.reviewed; r != nil {
		return r[0], r[1], true
	}
	return "", "", false
}

// Outcome sorts differences by review state.
type Outcome struct {
	// Accepted are the semantic differences an entry accepts.
	Accepted []Match `json:"accepted"`
	// Unreviewed are the semantic differences no entry accepts: they fail the gate.
	Unreviewed []diff.Difference `json:"unreviewed"`
	// Cosmetic are the cosmetic differences: reported, never a failure (an entry may still
	// accept one, and then it is not stale).
	Cosmetic []diff.Difference `json:"cosmetic"`
	// Changed are the entries whose difference changed since the review (neither in Stale nor
	// their differences in Unreviewed): they fail the gate.
	Changed []Change `json:"-"`
	// Stale are the entries that accept no difference: they fail the gate.
	Stale []*Entry `json:"-"`
}

// Passed reports whether the gate passes: no unreviewed difference, no changed and no stale
// entry.
func (o *Outcome) Passed() bool {
	return len(o.Unreviewed) == 0 && len(o.Stale) == 0 && len(o.Changed) == 0
}

// Apply sorts diffs against the allowlist. A nil File accepts nothing and has no entries.
//
// An entry that accepts nothing is stale, unless unreviewed differences of its kind, object
// (not a pattern) and attribute exist, exactly one (a probes entry: those of its probes): then
// the difference changed since the review, and the pair is one [Change].
func (f *File) Apply(diffs []diff.Difference) *Outcome {
	o := &Outcome{Accepted: []Match{}, Unreviewed: []diff.Difference{}, Cosmetic: []diff.Difference{}}
	var entries []Entry
	if f != nil {
		entries = f.Entries
	}
	used := make([]int, len(entries)) // differences accepted
	for _, d := range diffs {
		m := Match{Difference: d}
		for i := range entries {
			if entries[i].Matches(d) {
				used[i]++
				m.Entries = append(m.Entries, entries[i].Line)
				if m.Reason == "" {
					m.Reason = entries[i].Reason
				}
			}
		}
		switch {
		case d.Class == introspect.Cosmetic:
			o.Cosmetic = append(o.Cosmetic, d)
		case len(m.Entries) > 0:
			o.Accepted = append(o.Accepted, m)
		default:
			o.Unreviewed = append(o.Unreviewed, d)
		}
	}
	taken := make([]bool, len(o.Unreviewed))
	for i := range entries {
		e := &entries[i]
		if len(e.Probes) > 0 && used[i] == len(e.Probes) || len(e.Probes) == 0 && used[i] > 0 {
			continue
		}
		var same []int
		for j, d := range o.Unreviewed {
			switch {
			case taken[j]:
			case len(e.Probes) > 0:
				if _, ok := e.Probes[d.Object]; ok && d.Kind == "probe" {
					same = append(same, j)
				}
			case e.Object != "" && d.Kind == e.Kind && d.Object == e.Object && d.Attr == e.Attr:
				same = append(same, j)
			}
		}
		if len(same) == 0 || len(e.Probes) == 0 && len(same) > 1 {
			o.Stale = append(o.Stale, e)
			continue
		}
		c := Change{Entry: e}
		for _, j := range same {
			taken[j] = true
			c.Differences = append(c.Differences, o.Unreviewed[j])
		}
		o.Changed = append(o.Changed, c)
	}
	kept := o.Unreviewed[:0]
	for j, d := range o.Unreviewed {
		if !taken[j] {
			kept = append(kept, d)
		}
	}
	o.Unreviewed = kept
	return o
}
