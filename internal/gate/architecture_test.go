package gate

import (
	"os"
	"strings"
	"testing"
)

// TestEveryPackageHasItsParagraph keeps docs/architecture.md describing the tree as it is: every
// package of `go list ./...` is named in a paragraph of its "Packages" section.
func TestEveryPackageHasItsParagraph(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Packages\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Packages" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var paragraphs []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "- **") {
			head, _, _ := strings.Cut(strings.TrimPrefix(line, "- **"), "**")
			paragraphs = append(paragraphs, head)
		}
	}
	out, err := goListModule()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(pkg, "github.com/ledgercheck/ledgercheck/")
		found := false
		for _, h := range paragraphs {
			for _, name := range strings.Split(h, ", ") {
				found = found || strings.TrimSpace(strings.SplitN(name, " (", 2)[0]) == rel
			}
		}
		if !found {
			t.Errorf("docs/architecture.md has no paragraph for package %s", rel)
		}
	}
}
