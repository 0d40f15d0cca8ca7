package cli

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// TestVersionFlagAndCommand: --version prints one line with the version; `version --json` names
// ledgercheck's, Go's and pg_query_go's versions (from the build info), the supported PostgreSQL
// majors and, for each, the server binaries found (a version and a directory) or why there are
// none; `version` prints the same as text.
func TestVersionFlagAndCommand(t *testing.T) {
	code, out, errs := runCLI(t, "--version")
	if code != ExitOK || !strings.HasPrefix(out, "ledgercheck "+Version) || strings.Count(out, "\n") != 1 {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want one line starting %q", code, out, errs, "ledgercheck "+Version)
	}
	code, out, errs = runCLI(t, "version", "--json")
	// A test binary's build info may list no modules: then pg_query_go's version is unknown
	// (cmd/ledgercheck's tests check it on the built binary).
	wantPgQuery := "v5."
	if bi, ok := debug.ReadBuildInfo(); !ok || !slices.ContainsFunc(bi.Deps, func(m *debug.Module) bool { return m.Path == pgQueryModule }) {
		wantPgQuery = "unknown"
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); code != ExitOK || err != nil {
		t.Fatalf("version --json: exit %d, %v, stdout %q, stderr %q", code, err, out, errs)
	}
	if v.Ledgercheck != Version || v.Go != runtime.Version() || !strings.HasPrefix(v.PgQuery, wantPgQuery) || v.ParserGrammar != 16 || !slices.Equal(v.Supported, scratch.Versions) {
		t.Errorf("version --json = %+v; want ledgercheck %s, go %s, pg_query_go %s, grammar 16, postgres %v", v, Version, runtime.Version(), wantPgQuery, scratch.Versions)
	}
	if len(v.Found) != len(scratch.Versions) {
		t.Fatalf("postgres_found has %d entries, want one per supported major", len(v.Found))
	}
	for i, f := range v.Found {
		ok := f.Major == scratch.Versions[i] && (f.Error != "") != (f.BinDir != "" && strings.HasPrefix(f.Version, strconv.Itoa(f.Major)+"."))
		if !ok {
			t.Errorf("postgres_found[%d] = %+v; want major %d with its version and directory, or an error", i, f, scratch.Versions[i])
		}
	}
	code, out, _ = runCLI(t, "version")
	for _, want := range []string{"ledgercheck " + Version + "\n", "go: " + runtime.Version() + " ", "pg_query_go: " + v.PgQuery + " (PostgreSQL 16's grammar)\n", "PostgreSQL supported: 15, 17\n", "PostgreSQL 15: "} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("version: exit %d, stdout lacks %q:\n%s", code, want, out)
		}
	}
}
