// Package corpus scores ledgercheck against the labelled migrations of testdata/corpus: it reads
// the labels (expect.yaml), runs lint (and, when a server is given, the install with the file's
// needs, the cross-check and the security audit) on every file, matches the reported findings
// with the labels as testdata/corpus/README.md defines, and counts, per rule, true positives,
// false positives and false negatives, and the false-positive traps (`not` entries) hit.
//
// The test of this package fails on a missed label or a trap hit, and keeps each file's report
// as a golden; `go run ./internal/cmd/corpus` (make corpus) prints the table.
package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/lint"
)

// Expect is testdata/corpus/expect.yaml: the labels of every corpus file.
type Expect struct {
	Version  int                   `yaml:"version"`
	Defaults Defaults              `yaml:"defaults"`
	Files    map[string]FileExpect `yaml:"files"`
}

// Defaults are the settings every file is judged with.
type Defaults struct {
	Dim           int    `yaml:"dim"`
	Config        string `yaml:"config"`
	Prerequisites string `yaml:"prerequisites"`
}

// FileExpect is the labels of one file.
type FileExpect struct {
	ModelledOn string `yaml:"modelled_on"`
	// Kind is sidecar or base-schema.
	Kind string `yaml:"kind"`
	// Needs are installed before the file: env/*.sql as a superuser, other corpus files as the
	// install role.
	Needs []string `yaml:"needs"`
	// Install is "" (it installs) or "fails: why".
	Install string `yaml:"install"`
	// Clean says a correct gate reports no error.
	Clean bool `yaml:"clean"`
	// Findings must be reported; Not are false-positive traps.
	Findings []Label `yaml:"findings"`
	Not      []Label `yaml:"not"`
}

// Label is one expected finding, or one trap: a rule at a line.
type Label struct {
	Rule string `yaml:"rule"`
	Line int    `yaml:"line"`
	Note string `yaml:"note"`
	// Models are the kinds of project the label holds in (lint.NewDefaults, lint.OldDefaults),
	// for an installed-audit finding that depends on the default privileges; empty: every kind.
	Models []string `yaml:"models"`
}

// holds reports whether the label holds in the kind of project model ("" for every kind).
func (l Label) holds(model string) bool { return inModel(l.Models, model) }

// inModel reports whether a finding or label restricted to models (none: every kind) holds in
// model ("": whatever the kind).
func inModel(models []string, model string) bool {
	return model == "" || len(models) == 0 || slices.Contains(models, model)
}

// Load reads the labels of the corpus in dir (dir/expect.yaml), rejecting unknown keys and
// labels of files that do not exist.
func Load(dir string) (*Expect, error) {
	path := filepath.Join(dir, "expect.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the corpus labels: %w", err)
	}
	var e Expect
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if e.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", path, e.Version)
	}
	for name, fe := range e.Files {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("%s: labels for %s: %w", path, name, err)
		}
		for _, l := range append(slices.Clone(fe.Findings), fe.Not...) {
			for _, m := range l.Models {
				if m != lint.NewDefaults && m != lint.OldDefaults {
					return nil, fmt.Errorf("%s: %s line %d: unknown privilege model %q: want %s or %s", path, name, l.Line, m, lint.NewDefaults, lint.OldDefaults)
				}
			}
		}
		for _, n := range fe.Needs {
			if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
				return nil, fmt.Errorf("%s: %s needs %s: %w", path, name, n, err)
			}
		}
	}
	return &e, nil
}

// Names returns the labelled files in order.
func (e *Expect) Names() []string {
	out := make([]string, 0, len(e.Files))
	for n := range e.Files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
