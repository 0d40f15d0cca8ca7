package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestVersionOnTheBuiltBinary: the built binary's build info gives `version --json` pg_query_go's
// module version (a test binary's may not), and --version is its first line.
func TestVersionOnTheBuiltBinary(t *testing.T) {
	out, err := exec.Command(binary(t), "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v", err)
	}
	var v struct {
		Ledgercheck string `json:"ledgercheck"`
		PgQuery     string `json:"pg_query_go"`
	}
	if err := json.Unmarshal(out, &v); err != nil || !strings.HasPrefix(v.PgQuery, "v5.") || v.Ledgercheck == "" {
		t.Errorf("version --json: %v, %s; want pg_query_go v5.x and ledgercheck's version", err, out)
	}
	first, err := exec.Command(binary(t), "--version").Output()
	text, _ := exec.Command(binary(t), "version").Output()
	if err != nil || !strings.HasPrefix(string(text), string(first)) {
		t.Errorf("--version = %q (%v), the first line of version = %q", first, err, strings.SplitN(string(text), "\n", 2)[0])
	}
}
