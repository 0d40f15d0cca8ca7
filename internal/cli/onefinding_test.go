package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// A port whose statement the server rejects is one finding, in the phase install PORT; the phases
// that could not run on it (its cross-check, audit and rerun) say skip and point at that phase,
// instead of passing or failing the variant a second time for the same cause.
func TestInstallFailureIsOneFinding(t *testing.T) {
	scratchtest.NeedPostgres(t)
	src, err := os.ReadFile("../../migrations/ports/decision_ledger_1024.sql")
	if err != nil {
		t.Fatal(err)
	}
	port := filepath.Join(t.TempDir(), "broken_1024.sql")
	if err := os.WriteFile(port, append(src, "\nSELECT public.no_such_function();\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(src), "\n") + 2
	code, out, errs := runCLI(t, "check", "--config", repoConfig, "--port", port, "--port-dim", "1024")
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(out, "does not exist (SQLSTATE 42883)"); n != 1 {
		t.Errorf("the failing statement is reported %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{
		`(?m)^install broken_1024 +fail +1 `,
		`(?m)^lint installed broken_1024 +skip `,
		`(?m)^audit broken_1024 +skip `,
		`(?m)^rerun broken_1024 +skip `,
		`(?m)^parity broken_1024 +skip `,
		`(?m)^note: not compared: the port broken_1024 does not install \(see the phase install broken_1024\)$`,
		`(?m)^note: not run: .*broken_1024.sql does not install at .*broken_1024.sql:` + strconv.Itoa(line) + `:\d+ \(see the phase install broken_1024\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}
