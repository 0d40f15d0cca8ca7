package allowlist

import (
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/diff"
)

// TestReviewedFileRoundTrip: the texts suggest --write keeps for the entries pinned by digest
// come back exactly (a body's leading newline included) on the entry with that digest, and only
// entries of the merged allowlist keep theirs.
func TestReviewedFileRoundTrip(t *testing.T) {
	body := diff.Difference{Kind: "function", Object: "public.f()", Attr: "body", Artifact: "\nBEGIN\n  RETURN 1;\nEND;\n", Port: "\nBEGIN\n  RETURN 2; -- the port's\nEND;\n"}
	other := diff.Difference{Kind: "view", Object: "public.v", Attr: "definition", Artifact: "SELECT 1\n", Port: "SELECT 2\n"}
	merged, err := ParseDraft("a.yaml", []byte("version: 2\nentries:\n  - kind: function\n    object: public.f()\n    attr: body\n    digest: "+body.Digest()+"\n    reason: TODO\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, ok, err := ReviewedFile(merged, nil, []diff.Difference{body, other})
	if err != nil || !ok {
		t.Fatalf("ReviewedFile: %v, %v", ok, err)
	}
	if strings.Contains(string(out), other.Digest()) {
		t.Error("the texts of a digest no entry pins are kept")
	}
	// Another object with the same values (so the same digest) does not take the entry's texts.
	twin := body
	twin.Object, twin.Artifact = "public.g()", body.Artifact
	if out2, _, _ := ReviewedFile(merged, nil, []diff.Difference{twin}); out2 != nil {
		t.Errorf("the texts of another object with the same digest are kept:\n%s", out2)
	}
	if err := merged.AttachReviewed("a.reviewed.yaml", out); err != nil {
		t.Fatal(err)
	}
	a, p, ok := Change{Entry: &merged.Entries[0]}.ReviewedText()
	if !ok || a != body.Artifact || p != body.Port {
		t.Errorf("kept texts %q, %q (%v); want %q, %q\n%s", a, p, ok, body.Artifact, body.Port, out)
	}
	if err := merged.AttachReviewed("a.reviewed.yaml", []byte("version: 1\nvalues:\n  X")); err == nil {
		t.Error("a key that is not a digest is accepted")
	}
}

func TestReviewedPath(t *testing.T) {
	if got := ReviewedPath("ports/allowlist.yaml"); got != "ports/allowlist.reviewed.yaml" {
		t.Errorf("ReviewedPath: %s", got)
	}
}
