package cli

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestAllowlistSuggestWriteOnADriftedPort is issue 17's done-when: on the shipped allowlist and a
// drifted copy of the 1024 port (the half-life default 30 -> 45, a new index, a grant to anon),
// `allowlist suggest --write` keeps the 19 reviewed entries with their reasons and comments,
// adds one TODO entry per new difference (the four probes the default moved share one, keyed
// on the cause), and once the TODOs have reasons the gate passes.
func TestAllowlistSuggestWriteOnADriftedPort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	port, err := os.ReadFile("../../migrations/ports/decision_ledger_1024.sql")
	if err != nil {
		t.Fatal(err)
	}
	drift := strings.NewReplacer(
		"p_half_life_steps       float DEFAULT 30.0,", "p_half_life_steps       float DEFAULT 45.0,",
		"-- Delivered at COMMIT.", "CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_recalled ON public.agent_decision_ledger (last_recalled_at);\n"+
			"GRANT SELECT ON TABLE public.agent_recall_policy_stats TO anon;\n\n-- Delivered at COMMIT.",
	).Replace(string(port))
	dir := t.TempDir()
	portFile := filepath.Join(dir, "my_port.sql")
	shipped, err := os.ReadFile("../../allowlist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	al := filepath.Join(dir, "allowlist.yaml")
	for _, f := range []struct {
		path string
		data []byte
	}{{portFile, []byte(drift)}, {al, shipped}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--config", "../../ledgercheck.yaml", "--port", portFile, "--port-dim", "1024", "--allowlist", al}
	code, out, errs := runCLI(t, append([]string{"allowlist", "suggest", "--write"}, args...)...)
	if code == ExitEnv {
		scratchtest.Unavailable(t, errors.New(errs))
	}
	if code != ExitOK || !strings.Contains(out, al+": 19 entries kept, 0 changed since review, 0 stale removed, 4 added (reason TODO)") {
		t.Fatalf("suggest --write: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	merged, err := os.ReadFile(al)
	if err != nil {
		t.Fatal(err)
	}
	// The reviewed file is unchanged up to its end: every entry, reason and comment.
	if !strings.HasPrefix(string(merged), string(shipped)) {
		t.Errorf("the reviewed entries changed:\n%s", merged)
	}
	added := string(merged[len(shipped):])
	if n := strings.Count(added, "reason: TODO"); n != 4 {
		t.Errorf("%d TODO entries, want 4 (arguments, index, acl:anon, one for the probes):\n%s", n, added)
	}
	for _, want := range []string{
		"attr: arguments", "object: public.idx_agent_decision_ledger_recalled", "attr: acl:anon",
		"  - kind: probe\n    cause: function public.match_decision_ledger(14 arguments) arguments\n    probes:\n      cosine-as-service-role: sha256:",
	} {
		if !strings.Contains(added, want) {
			t.Errorf("added entries lack %q:\n%s", want, added)
		}
	}
	// The texts of the entries pinned by digest are kept beside the allowlist, for a later change
	// since review to be shown against them.
	rv, err := os.ReadFile(filepath.Join(dir, "allowlist.reviewed.yaml"))
	if err != nil || !strings.Contains(string(rv), "    attr: body\n    digest: sha256:") || !strings.Contains(out, "allowlist.reviewed.yaml: the texts") {
		t.Errorf("no reviewed texts of the body entry (%v); stdout:\n%s", err, out)
	}
	// The gate rejects the TODOs, then passes once they are reasons.
	code, _, errs = runCLI(t, append([]string{"parity"}, args...)...)
	if code != ExitInput || !strings.Contains(errs, "has reason TODO") {
		t.Errorf("parity with TODOs: exit %d, stderr %q", code, errs)
	}
	reviewed := regexp.MustCompile(`reason: TODO`).ReplaceAll(merged, []byte("reason: reviewed by the port's owner"))
	if err := os.WriteFile(al, reviewed, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, append([]string{"parity"}, args...)...)
	if code != ExitOK {
		t.Errorf("parity after review: exit %d\n%s\n%s", code, out, errs)
	}
	// Nothing left to merge.
	code, out, _ = runCLI(t, append([]string{"allowlist", "suggest", "--write"}, args...)...)
	if code != ExitOK || !strings.Contains(out, "up to date (23 entries") {
		t.Errorf("second suggest --write: exit %d, %s", code, out)
	}
}

// TestMissingAllowlistHint: the hint for a missing allowlist creates it with suggest --write,
// which never drops reviewed entries (not `suggest > FILE`).
func TestMissingAllowlistHint(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "allow.yaml")
	code, _, errs := runCLI(t, "parity", "--config", "../../ledgercheck.yaml", "--allowlist", missing)
	if code != ExitInput || !strings.Contains(errs, "ledgercheck allowlist suggest --write --config ../../ledgercheck.yaml --allowlist "+missing) || strings.Contains(errs, ">") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
