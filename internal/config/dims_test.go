package config

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// A dimension is an error only where the user wrote it: a configuration for lint alone has no
// artifact, so no dimension to call out of range (check says the artifact has no file); an
// artifact given by --artifact or by a file: key without dim: (a migration without vector
// columns) installs at the prerequisites' dimension; a dim: 0 written in the file, or a
// --artifact-dim 0 typed, is still out of range, under the name the user typed.
func TestDimensionsTheUserDidNotType(t *testing.T) {
	lintOnly, err := Parse("c.yaml", []byte("version: 2\nlint:\n  untrusted_extensions: [dblink]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := lintOnly.Override(Overrides{}); err != nil {
		t.Errorf("a lint-only configuration: %v", err)
	}
	if err := lintOnly.Override(Overrides{ArtifactFile: "notes.sql"}); err != nil || lintOnly.Artifact.Dim != scratch.DefaultDim {
		t.Errorf("--artifact without --artifact-dim: %v, dim %d; want no error, dim %d", err, lintOnly.Artifact.Dim, scratch.DefaultDim)
	}
	noDim, err := Parse("c.yaml", []byte("version: 2\nartifact:\n  file: notes.sql\nprerequisites:\n  openbrain: false\n"))
	if err != nil || noDim.Artifact.Dim != scratch.DefaultDim {
		t.Fatalf("an artifact without dim: %v, dim %v; want dim %d", err, noDim, scratch.DefaultDim)
	}
	if _, err := Parse("c.yaml", []byte("version: 2\nartifact:\n  file: notes.sql\n  dim: 0\n")); err == nil || !strings.Contains(err.Error(), "c.yaml:4: artifact: dim 0 is out of range") {
		t.Errorf("dim: 0 written: %v", err)
	}
	zero := 0
	if err := noDim.Override(Overrides{ArtifactDim: &zero}); err == nil || !strings.HasPrefix(err.Error(), "--artifact-dim 0 is out of range") {
		t.Errorf("--artifact-dim 0 typed: %v", err)
	}
}
