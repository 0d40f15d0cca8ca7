package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pg_cron sidecar (corpus file 60: a job, unscheduled when present and scheduled by name, that
// calls a function of the file's, which reads Vault and posts with pg_net) installs on the
// scratch environment, passes lint --install and survives the rerun audit; the same file with
// its cron.unschedule unguarded does not install, since a fresh project has no such job, as on
// Supabase.
func TestPgCronSidecarPassesLintInstallAndRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "60-clean-cron-net-vault-digest.sql"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	file := writeSQL(t, "digest.sql", string(src))
	code, out, errs := runCLI(t, "lint", "-q", "--install", "--dim", "1536", file)
	skipWithoutPostgres(t, code, errs)
	if code != ExitOK {
		t.Fatalf("lint --install: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "rerun", file, "--dim", "1536", "--no-fixture"); code != ExitOK {
		t.Errorf("rerun: exit %d\n%s%s", code, out, errs)
	}

	guard := "select cron.unschedule(jobid) from cron.job where jobname = 'ob1-daily-digest';"
	if !strings.Contains(string(src), guard) {
		t.Fatalf("the corpus file no longer has %q", guard)
	}
	unguarded := writeSQL(t, "unguarded.sql", strings.Replace(string(src), guard, "select cron.unschedule('ob1-daily-digest');", 1))
	code, out, errs = runCLI(t, "lint", "-q", "--install", "--dim", "1536", unguarded)
	if code != ExitFindings || !strings.Contains(out, "could not find valid entry for job 'ob1-daily-digest'") {
		t.Errorf("lint --install of the unguarded file: exit %d, want 1 with pg_cron's error\n%s%s", code, out, errs)
	}
}
