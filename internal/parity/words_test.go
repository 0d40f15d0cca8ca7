package parity

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoSidesInTheVariantsPackages: diff, parity and the allowlist speak the glossary's words for
// the two variants (docs/architecture.md, "Glossary"): no identifier, comment or message of their
// code says side, left or right.
func TestNoSidesInTheVariantsPackages(t *testing.T) {
	word := regexp.MustCompile(`(?i)\b(sides?|left|right)\b`)
	for _, dir := range []string{"../../diff", ".", "../allowlist"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if m := word.FindString(line); m != "" {
					t.Errorf("%s:%d: %q: say artifact and port (or the variant), not %s", f, i+1, strings.TrimSpace(line), m)
				}
			}
		}
	}
}
