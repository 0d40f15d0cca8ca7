package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ledgercheck/internal/scratch"
	"ledgercheck/internal/scratch/scratchtest"
)

// serverState is what a run must leave as it was on the server a --port-dsn names: the
// schema of the database (pg_dump -s), and the server's databases and roles.
func serverState(t *testing.T, live *scratchtest.DSNServer, db string) string {
	t.Helper()
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(bin, "pg_dump"), "--schema-only", "-d", live.DSNOf("postgres", db)).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	// pg_dump 15.14 and later write a random \restrict key.
	dump := regexp.MustCompile(`(?m)^\\(un)?restrict .*$`).ReplaceAllString(string(out), "")
	var globals string
	if err := live.Conn(t).QueryRow(context.Background(), `SELECT
		(SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database) || ' / ' ||
		(SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles)`).Scan(&globals); err != nil {
		t.Fatal(err)
	}
	return globals + "\n" + dump
}

// A database holding the shipped port, as a deployment installed it, passes parity with the
// port's file and the shipped allowlist, read by a role that has nothing but CONNECT; a grant to
// anon made afterwards is reported; and nothing on that server changes.
func TestParityLiveDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	const port = "../../migrations/ports/decision_ledger_1024.sql"
	live, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	defer live.Stop()
	live.Deploy(t, "prod", 1024, port)
	if _, err := live.Conn(t).Exec(context.Background(), "CREATE ROLE reader LOGIN"); err != nil {
		t.Fatal(err)
	}
	reader := live.DSNOf("reader", "prod")

	before := serverState(t, live, "prod")
	code, out, errs := runCLI(t, "parity", "--config", repoConfig, "--right-dsn", reader, "--right", port, "--right-dim", "1024")
	if code == ExitEnv {
		t.Skipf("no Postgres: %s", errs)
	}
	if code != ExitOK || !strings.Contains(out, "the port decision_ledger_1024 was read from the database reader@") || !strings.Contains(errs, "--right-dsn is deprecated; use --port-dsn") {
		t.Errorf("the deployed port: exit %d\n%s%s", code, out, errs)
	}
	if after := serverState(t, live, "prod"); after != before {
		t.Errorf("parity changed the server it read:\nbefore %s\nafter %s", before, after)
	}

	if _, err := live.ConnTo(t, "prod").Exec(context.Background(), "GRANT SELECT ON public.agent_decision_ledger TO anon"); err != nil {
		t.Fatal(err)
	}
	before = serverState(t, live, "prod")
	code, out, errs = runCLI(t, "parity", "-q", "--config", repoConfig, "--port-dsn", reader, "--port", port, "--port-dim", "1024")
	if code != ExitFindings || !strings.Contains(out, "acl:anon of table public.agent_decision_ledger differs [unreviewed-difference]") {
		t.Errorf("a grant to anon in the deployment: exit %d\n%s%s", code, out, errs)
	}
	if after := serverState(t, live, "prod"); after != before {
		t.Errorf("parity changed the server it read:\nbefore %s\nafter %s", before, after)
	}

	// Without the port's file: the same drift, and the report says what it could not check.
	code, out, _ = runCLI(t, "parity", "-q", "--config", repoConfig, "--port-dsn", reader)
	for _, want := range []string{"acl:anon of table public.agent_decision_ledger differs", "signature typmods of the port production-1024 could not be verified",
		`(?m)^probes production-1024 +skip`} {
		if code != ExitFindings || !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("without the file: exit %d, want %q in\n%s", code, want, out)
		}
	}
}
