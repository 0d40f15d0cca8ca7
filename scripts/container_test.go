package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dockerStub stands for docker and a pgvector/pgvector:*-pg15 container (simulation): it records
// every call, answers the environment and psql queries the script makes, and keeps the state
// that matters: the guard is loaded after a restart only if make installed it and ALTER SYSTEM
// preloaded it. $STATE holds that state; $MAJOR, $PRELOAD and $LOADED set the container's.
const dockerStub = `#!/bin/bash
echo "docker $*" >> "$STATE/calls"
case "$*" in
  *'PG_MAJOR'*) printf %s "$MAJOR" ;;
  *'POSTGRES_USER'*) printf postgres ;;
  *"current_setting('ledgercheck_guard.version', true)"*) cat "$STATE/loaded" 2>/dev/null || printf %s "$LOADED" ;;
  *'SHOW shared_preload_libraries'*) printf %s "$PRELOAD" ;;
  *'ALTER SYSTEM SET shared_preload_libraries'*ledgercheck_guard*) touch "$STATE/altered" ;;
  *' make '*' install') a="$*"; [ -n "$BROKEN" ] || echo "${a##*GUARD_VERSION=}" | cut -d' ' -f1 > "$STATE/installed" ;;
  'restart '*) if [ -f "$STATE/altered" ] && [ -f "$STATE/installed" ]; then tr -d '\n' < "$STATE/installed" > "$STATE/loaded"; fi ;;
esac
exit 0
`

// TestGuardContainer (simulation: docker is a stub): guard-container.sh loads the guard into a
// PostgreSQL 15 service container (the build tools installed inside, the source copied in and
// built with its digest, appended to shared_preload_libraries, the container restarted) and
// checks that the server then reports the digest; on 17, or with the guard already loaded, it
// does nothing; a restart that does not load it is an error.
func TestGuardContainer(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	guard := digest(t, guardSource)
	run := func(env ...string) (int, string, []string) {
		t.Helper()
		state := t.TempDir()
		stub := filepath.Join(state, "docker")
		if err := os.WriteFile(stub, []byte(dockerStub), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "guard-container.sh", "svc1")
		cmd.Env = append(os.Environ(), append([]string{"DOCKER=" + stub, "STATE=" + state, "BROKEN=", "LOADED="}, env...)...)
		out, err := cmd.CombinedOutput()
		code := exitCode(t, err)
		calls, _ := os.ReadFile(filepath.Join(state, "calls"))
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(calls), stub, "docker"), "\n"), "\n")
		return code, string(out), lines
	}
	psql := "docker exec -u postgres svc1 psql -X -q -t -A -U postgres -d postgres -c "
	version := psql + "SELECT pg_catalog.current_setting('ledgercheck_guard.version', true)"

	code, out, calls := run("MAJOR=15", "PRELOAD=pg_stat_statements")
	want := []string{
		`docker exec svc1 sh -c printf %s "${PG_MAJOR:-}"`,
		`docker exec svc1 sh -c printf %s "${POSTGRES_USER:-postgres}"`,
		version,
		"docker exec svc1 sh -c apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends build-essential postgresql-server-dev-15 >/dev/null",
		"docker exec svc1 mkdir -p /tmp/ledgercheck-guard",
		"docker cp " + root + "/internal/scratch/guard/c/. svc1:/tmp/ledgercheck-guard/",
		"docker exec svc1 make -s -C /tmp/ledgercheck-guard PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + guard + " install",
		psql + "SHOW shared_preload_libraries",
		psql + "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements, ledgercheck_guard'",
		"docker restart svc1",
		"docker exec svc1 pg_isready -q -U postgres -d postgres",
		version,
	}
	if code != 0 || !strings.HasSuffix(out, "guard-container: ledgercheck_guard "+guard+" is loaded in svc1\n") || strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("PostgreSQL 15: exit %d, output:\n%s\ncalls:\n%s\nwant exit 0, the guard loaded, and calls:\n%s", code, out, strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}

	for name, env := range map[string][]string{
		"17":             {"MAJOR=17"},
		"already loaded": {"MAJOR=15", "LOADED=" + guard},
	} {
		code, out, calls := run(env...)
		if code != 0 || !strings.Contains(out, "nothing to do") || len(calls) > 3 {
			t.Errorf("%s: exit %d, output %q, calls %q; want exit 0, nothing to do, and no install", name, code, out, calls)
		}
	}

	code, out, _ = run("MAJOR=15", "PRELOAD=", "BROKEN=1")
	if code != 1 || !strings.Contains(out, "after the restart svc1 reports ledgercheck_guard version '', not "+guard) {
		t.Errorf("a restart that does not load the guard: exit %d, output %q; want exit 1 saying so", code, out)
	}
}
