package allowlist

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/yamltext"
)

// The values of the entries pinned by digest (function bodies, view definitions) are not in the
// allowlist, which stays readable; `allowlist suggest --write` keeps their texts, as the report
// shows them, beside it in the reviewed file (allowlist.reviewed.yaml for allowlist.yaml), filed
// under the entry's digest, so that a difference that changed since review can be shown against
// what was reviewed. The file only shows: the digest in the allowlist is what accepts a
// difference, and the texts kept for a digest that no entry pins any more are dropped.

// ReviewedVersion is the reviewed file's format version.
const ReviewedVersion = 1

// ReviewedPath returns the reviewed file of the allowlist at path: beside it, ".reviewed" before
// its extension.
func ReviewedPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".reviewed" + ext
}

type reviewedFile struct {
	Version int             `yaml:"version"`
	Entries []reviewedEntry `yaml:"entries"`
}

// reviewedEntry is the texts of one entry: its kind, object, attribute and digest, and each of
// its two texts as lines (a YAML literal block would lose a text's leading newline, which a
// function body usually has). Two differences can have one digest (the same values on other
// objects), so the entry's identity is part of the key.
type reviewedEntry struct {
	Kind     string   `yaml:"kind"`
	Object   string   `yaml:"object"`
	Attr     string   `yaml:"attr,omitempty"`
	Digest   string   `yaml:"digest"`
	Artifact []string `yaml:"artifact"`
	Port     []string `yaml:"port"`
}

func (r reviewedEntry) key() string {
	return r.Kind + "\x00" + r.Object + "\x00" + r.Attr + "\x00" + r.Digest
}

// reviewedKey is the key of the texts of e, an entry pinned by digest that names one object.
func (e *Entry) reviewedKey() (string, bool) {
	if e.Digest == "" || e.Object == "" {
		return "", false
	}
	return reviewedEntry{Kind: e.Kind, Object: e.Object, Attr: e.Attr, Digest: e.Digest}.key(), true
}

// AttachReviewed reads the reviewed file (path, its content) and gives each entry of f pinned by
// digest the texts filed under its kind, object, attribute and digest.
func (f *File) AttachReviewed(path string, data []byte) error {
	if line, what := yamltext.Check(data); what != "" {
		return fault.Input(fmt.Errorf("%s:%d: %s", path, line, what))
	}
	var rf reviewedFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil {
		return fault.Input(fmt.Errorf("%s: %w (written by `ledgercheck allowlist suggest --write`; delete it and run that again)", path, err))
	}
	if rf.Version != ReviewedVersion {
		return fault.Input(fmt.Errorf("%s: version %d; want %d", path, rf.Version, ReviewedVersion))
	}
	texts := map[string]reviewedEntry{}
	for _, r := range rf.Entries {
		if !validDigest(r.Digest) {
			return fault.Input(fmt.Errorf("%s: %q is not a digest (delete the file and run `ledgercheck allowlist suggest --write` again)", path, r.Digest))
		}
		texts[r.key()] = r
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if k, ok := e.reviewedKey(); ok {
			if r, ok := texts[k]; ok {
				e.reviewed = &[2]string{strings.Join(r.Artifact, "\n"), strings.Join(r.Port, "\n")}
			}
		}
	}
	return nil
}

// ReviewedFile returns the content of the reviewed file for the allowlist merged: the texts of
// each of its entries pinned by digest that names one object, from the difference of diffs (the
// comparison's) that the entry accepts or the texts previous had for it; and whether there is
// any (none: no file).
func ReviewedFile(merged, previous *File, diffs []diff.Difference) ([]byte, bool, error) {
	known := map[string][2]string{}
	if previous != nil {
		for i := range previous.Entries {
			e := &previous.Entries[i]
			if k, ok := e.reviewedKey(); ok && e.reviewed != nil {
				known[k] = *e.reviewed
			}
		}
	}
	rf := reviewedFile{Version: ReviewedVersion}
	for i := range merged.Entries {
		e := &merged.Entries[i]
		k, ok := e.reviewedKey()
		if !ok {
			continue
		}
		texts, found := known[k]
		for _, d := range diffs {
			if d.Kind == e.Kind && d.Object == e.Object && d.Attr == e.Attr && d.Digest() == e.Digest {
				a, p := d.Shown()
				texts, found = [2]string{a, p}, true
				break
			}
		}
		if found {
			rf.Entries = append(rf.Entries, reviewedEntry{Kind: e.Kind, Object: e.Object, Attr: e.Attr, Digest: e.Digest,
				Artifact: strings.Split(texts[0], "\n"), Port: strings.Split(texts[1], "\n")})
		}
	}
	if len(rf.Entries) == 0 {
		return nil, false, nil
	}
	sort.Slice(rf.Entries, func(i, j int) bool { return rf.Entries[i].key() < rf.Entries[j].key() })
	var b bytes.Buffer
	b.WriteString("# Written by `ledgercheck allowlist suggest --write`: the texts of the values of the allowlist's\n" +
		"# entries pinned by digest, as reviewed, so that a change since review is shown against them.\n" +
		"# The allowlist's digests decide what is accepted; this file only shows. Commit it with the\n" +
		"# allowlist; do not edit it.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(rf); err != nil {
		return nil, false, err
	}
	return b.Bytes(), true, enc.Close()
}
