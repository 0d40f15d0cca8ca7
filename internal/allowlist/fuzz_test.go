package allowlist

import (
	"github.com/ledgercheck/ledgercheck/internal/yamltext/yamltexttest"
	"os"
	"strings"
	"testing"
)

// FuzzParse asserts that Parse never panics and that every error it returns is an input error
// of the form "allowlist.yaml:LINE: ..." with a line inside the file. Seeds are the shipped
// allowlist and a few broken ones.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../../allowlist.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"version: 2\nentries: []\n",
		"version: 2\nentries:\n  - kind: table\n    object_match: 'public\\.(a|b'\n    attr: rls\n    artifact: \"true\"\n    port: \"false\"\n    reason: r\n",
		"version: 2\nentries:\n  - kind: function\n    object: f()\n    attr: body\n    digest: sha256:00\n    reason: TODO\n",
		"version: 2\nentries:\n  - kind: probe\n    cause: function f() arguments\n    probes:\n      p1: sha256:" + strings.Repeat("0", 64) + "\n    reason: TODO changed since review: r\n",
		"version: one\n", "entries: [\n", "- a\n", "~\n", "---\n", "version: 2\nentries: &a [*a]\n",
		"version: 2\nentries:\n  - {kind: table, object: t, artifact: '', port: x, reason: ok}\n  - {kind: table, object: t, artifact: '', port: x, reason: ok}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("allowlist.yaml", data)
		if err == nil {
			return
		}
		yamltexttest.CheckError(t, "allowlist.yaml", data, err)
	})
}
