package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// shippedAsRepository writes the repository's ledgercheck.yaml as a configuration of version 3
// (one sidecar, decision-ledger, with the artifact's keys and the ports; every other key at the
// top level, as the sidecars' defaults) into a new directory, its paths made absolute, and
// returns its path.
func shippedAsRepository(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "ledgercheck.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	absolute(&doc, root)
	top := doc.Content[0]
	sidecar := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("name"), scalar("decision-ledger")}}
	var kept []*yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "version":
			v.Value = "3"
		case "artifact":
			sidecar.Content = append(sidecar.Content, v.Content...)
			continue
		case "ports":
			sidecar.Content = append(sidecar.Content, k, v)
			continue
		}
		kept = append(kept, k, v)
	}
	top.Content = append(kept, scalar("sidecars"), &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{sidecar}})
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledgercheck.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// absolute makes the value of every path key under n absolute, against root.
func absolute(n *yaml.Node, root string) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "file", "previous", "allowlist", "fixture":
				if v.Kind == yaml.ScalarNode && v.Value != "" {
					v.Value = filepath.Join(root, v.Value)
				}
			}
		}
	}
	for _, c := range n.Content {
		absolute(c, root)
	}
}

// The shipped artifact and port pass check through a configuration of version 3 as they do
// through version 2: the same phases (named after the sidecar), statuses and findings.
func TestShippedPairThroughVersion3(t *testing.T) {
	scratchtest.NeedPostgres(t)
	v3 := shippedAsRepository(t)
	want := sharedCheck(t, "--config", repoConfig)
	got := repositoryCheckWith(t, true, "--config", v3)
	if want.Status() != report.StatusPass || got.Status() != want.Status() {
		t.Fatalf("version 2: %s, version 3: %s; want both pass", want.Status(), got.Status())
	}
	rename := strings.NewReplacer(" artifact", " decision-ledger", " production-1024", " decision-ledger/production-1024")
	byName := map[string]report.PhaseResult{}
	for _, ph := range got.Phases {
		byName[ph.Name] = ph
	}
	if len(got.Phases) != len(want.Phases) {
		t.Errorf("%d phases through version 3, %d through version 2", len(got.Phases), len(want.Phases))
	}
	for _, w := range want.Phases {
		g, ok := byName[rename.Replace(w.Name)]
		if !ok {
			t.Errorf("version 3 has no phase %q (version 2's %q)", rename.Replace(w.Name), w.Name)
			continue
		}
		if g.Status != w.Status || len(g.Findings) != len(w.Findings) {
			t.Errorf("%s: %s with %d findings through version 3, %s with %d through version 2", g.Name, g.Status, len(g.Findings), w.Status, len(w.Findings))
		}
	}
}

// parity and allowlist suggest act on one sidecar of a repository's configuration, named with
// --sidecar and installed over its needs: the shipped pair as a sidecar passes parity as it does
// through version 2. Without --sidecar, or with a misspelt one, they say which sidecars there
// are (exit 2); check --sidecar checks that one alone.
func TestOneSidecarOfARepository(t *testing.T) {
	scratchtest.NeedPostgres(t)
	v3 := shippedAsRepository(t)
	at := []string{"--allow-outside-repo", "--config", v3}
	if code, out, errs := runCLI(t, append([]string{"parity", "-q", "--sidecar", "decision-ledger"}, at...)...); code != ExitOK {
		t.Errorf("parity --sidecar decision-ledger: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, append([]string{"parity"}, at...)...); code != ExitInput || !strings.Contains(errs, "with --sidecar NAME (its sidecars: decision-ledger)") {
		t.Errorf("parity without --sidecar: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, append([]string{"allowlist", "suggest", "--sidecar", "decision-ledgr"}, at...)...); code != ExitInput || !strings.Contains(errs, "(did you mean decision-ledger?)") {
		t.Errorf("allowlist suggest --sidecar decision-ledgr: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "parity", "--sidecar", "decision-ledger"); code != ExitInput || !strings.Contains(errs, "not a repository's sidecars") {
		t.Errorf("parity --sidecar over a configuration of version 2: exit %d: %s", code, errs)
	}
}
