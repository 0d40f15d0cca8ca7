package allowlist

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ledgercheck/internal/fault"
)

// FuzzParse asserts that Parse never panics and that every error it returns is an input error
// of the form "allowlist.yaml:LINE: ..." with a line inside the file. Seeds are the shipped
// allowlist and a few broken ones.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../allowlist.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"version: 1\nentries: []\n",
		"version: 1\nentries:\n  - kind: table\n    object_match: 'public\\.(a|b'\n    attr: rls\n    left: \"true\"\n    right: \"false\"\n    reason: r\n",
		"version: 1\nentries:\n  - kind: function\n    object: f()\n    attr: body\n    digest: sha256:00\n    reason: TODO\n",
		"version: one\n", "entries: [\n", "- a\n", "~\n", "---\n", "version: 1\nentries: &a [*a]\n",
		"version: 1\nentries:\n  - {kind: table, object: t, left: '', right: x, reason: ok}\n  - {kind: table, object: t, left: '', right: x, reason: ok}\n",
	} {
		f.Add([]byte(s))
	}
	lineRE := regexp.MustCompile(`^allowlist\.yaml:(\d+): \S`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("allowlist.yaml", data)
		if err == nil {
			return
		}
		checkLine(t, lineRE, err, data)
	})
}

// checkLine fails unless err is an input error whose message starts with the file's name and a
// line of data.
func checkLine(t *testing.T, re *regexp.Regexp, err error, data []byte) {
	t.Helper()
	if fault.KindOf(err) != fault.KindInput {
		t.Fatalf("error %q is not an input error", err)
	}
	m := re.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error %q does not start with file:line:", err)
	}
	n, _ := strconv.Atoi(m[1])
	if lines := strings.Count(string(data), "\n") + 1; n < 1 || n > lines {
		t.Fatalf("error %q names line %d of a %d-line file", err, n, lines)
	}
}
