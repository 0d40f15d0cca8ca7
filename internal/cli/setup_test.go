package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/guard"
)

// setupRoot makes a fake root for LEDGERCHECK_SETUP_SYSROOT: its /etc/os-release, an apt source,
// and a file (a path relative to the root) per extra entry, with its content.
func setupRoot(t *testing.T, osRelease string, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"etc/os-release": osRelease,
		"etc/apt/sources.list.d/debian.sources": "Types: deb\nURIs: http://deb.debian.invalid/debian\nSuites: bookworm\nComponents: main\n"}
	for k, v := range extra {
		files[k] = v
	}
	for name, content := range files {
		write(t, filepath.Join(root, name), content)
	}
	return root
}

// TestSetupCarriesWhatItInstalls (simulation): `ledgercheck setup`, run from a directory outside
// any checkout, plans the install from the files the binary carries: on Debian 12 (PostgreSQL 15
// and 17) and Ubuntu 24.04 with nothing installed (a fake root), the plan names each
// distribution's packages, and the guard's source and the AppArmor profile in a directory of the
// run's own (not the checkout), built at the carried source's digest; the command it names for 17
// is this binary's `setup --pg 17`, not a script of a checkout.
func TestSetupCarriesWhatItInstalls(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	debian := "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_ID=\"12\"\nID=debian\n"
	ubuntu := "PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\n"
	for _, tc := range []struct {
		name, osRelease, pg string
		extra               map[string]string
		want                []string
	}{
		{"debian-12", debian, "15", nil, []string{"apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-plpgsql-check",
			"apt-get source --download-only pgvector=0.8.0-1", "apt-get install -y bubblewrap",
			"/guard PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + guard.Digest() + " install"}},
		{"debian-12-pg17", debian, "17", nil, []string{self + " setup --pg 17   # into /usr/local/lib/postgresql/17",
			"pg_config built from /", "apt-get install -y bubblewrap"}},
		{"ubuntu-24.04", ubuntu, "15", map[string]string{"proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1\n"}, []string{
			"sh /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y",
			"apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-pgvector postgresql-15-plpgsql-check bubblewrap gcc make",
			"/apparmor/ledgercheck-bwrap /etc/apparmor.d/ledgercheck-bwrap",
			"/guard PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + guard.Digest() + " install"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LEDGERCHECK_SETUP_SYSROOT", setupRoot(t, tc.osRelease, tc.extra))
			t.Chdir(t.TempDir())
			code, out, errs := runCLI(t, "setup", "--pg", tc.pg)
			if code != ExitOK || errs != "" || !strings.HasPrefix(out, "setup: simulation (") {
				t.Fatalf("exit %d, stderr %q; want exit 0 and a plan:\n%s", code, errs, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the plan lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, repo) {
				t.Errorf("the plan names the checkout %s:\n%s", repo, out)
			}
		})
	}
}

// TestSetupOnThisMachine: where setup has been done (make setup ran: everything is installed),
// `ledgercheck setup` from a directory outside any checkout has nothing to do, for 15 and 17.
// Under CI=true, 15 must be set up (make test sets it up), and 17 where the run is on 17 (make
// test-pg17 sets it up first; make test runs before it, on a machine that may have no 17).
func TestSetupOnThisMachine(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, pg := range []string{"15", "17"} {
		if code, out, errs := runCLI(t, "setup", "--check", "--pg", pg); code != ExitOK {
			if os.Getenv("CI") == "true" && setUpForThisRun(pg) {
				t.Fatalf("setup --check --pg %s: exit %d (CI=true, where setup has been done): %s%s", pg, code, out, errs)
			}
			t.Skipf("setup has not been done for %s here: %s", pg, strings.TrimSpace(errs))
		}
		code, out, errs := runCLI(t, "setup", "--pg", pg)
		if code != ExitOK || !strings.HasSuffix(out, "setup: nothing to do\n") || !strings.Contains(out, "setup: skip: bubblewrap present") {
			t.Errorf("setup --pg %s: exit %d, stderr %q; want exit 0 and nothing to do:\n%s", pg, code, errs, out)
		}
	}
}

// TestSetupRefusesVersionsLedgercheckDoesNotRun: setup installs no PostgreSQL that ledgercheck
// refuses to run: --pg 16 (or $LEDGERCHECK_PG=16) is one input error line, exit 2, as the other
// commands say it.
func TestSetupRefusesVersionsLedgercheckDoesNotRun(t *testing.T) {
	code, out, errs := runCLI(t, "setup", "--pg", "16")
	if code != ExitInput || out != "" || errs != "ledgercheck: --pg 16: ledgercheck runs PostgreSQL 15 or 17\n" {
		t.Errorf("setup --pg 16: exit %d, stdout %q, stderr %q; want exit 2 and one line", code, out, errs)
	}
	t.Setenv("LEDGERCHECK_PG", "16")
	code, _, errs = runCLI(t, "setup", "--check")
	if code != ExitInput || errs != "ledgercheck: LEDGERCHECK_PG=16: ledgercheck runs PostgreSQL 15 or 17\n" {
		t.Errorf("LEDGERCHECK_PG=16 setup --check: exit %d, stderr %q; want exit 2 and one line", code, errs)
	}
}

// dockerStub stands for docker and a running PostgreSQL 15 container of the official image family
// (see scripts/container_test.go for the script's own test): it records every call and answers
// the script's queries; the guard is loaded after the restart once make has installed it.
const dockerStub = `#!/bin/bash
echo "docker $*" >> "$STATE/calls"
case "$*" in
  *'PG_MAJOR'*) printf 15 ;;
  *'POSTGRES_USER'*) printf postgres ;;
  *"current_setting('ledgercheck_guard.version', true)"*) cat "$STATE/loaded" 2>/dev/null ;;
  *'SHOW shared_preload_libraries'*) ;;
  *' make '*' install') a="$*"; echo "${a##*GUARD_VERSION=}" | cut -d' ' -f1 | tr -d '\n' > "$STATE/installed" ;;
  'restart '*) cp "$STATE/installed" "$STATE/loaded" ;;
esac
exit 0
`

// TestSetupContainerCarriesTheGuard (simulation: docker is a stub): `ledgercheck setup --container
// NAME`, outside any checkout, copies the guard's source the binary carries into the container,
// builds it there at its digest and finds it loaded after the restart.
func TestSetupContainerCarriesTheGuard(t *testing.T) {
	state := t.TempDir()
	write(t, filepath.Join(state, "docker"), dockerStub)
	if err := os.Chmod(filepath.Join(state, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER", filepath.Join(state, "docker"))
	t.Setenv("STATE", state)
	t.Chdir(t.TempDir())
	code, out, errs := runCLI(t, "setup", "--container", "svc1")
	calls, _ := os.ReadFile(filepath.Join(state, "calls"))
	if code != ExitOK || !strings.HasSuffix(out, "guard-container: ledgercheck_guard "+guard.Digest()+" is loaded in svc1\n") {
		t.Fatalf("setup --container svc1: exit %d, stderr %q, stdout %q, calls:\n%s", code, errs, out, calls)
	}
	var cp string
	for _, l := range strings.Split(string(calls), "\n") {
		if strings.HasPrefix(l, "docker cp ") {
			cp = l
		}
	}
	if !strings.HasSuffix(cp, "/guard/. svc1:/tmp/ledgercheck-guard/") || strings.Contains(cp, "internal/scratch") {
		t.Errorf("the guard's source copied in: %q; want the run's own copy of it", cp)
	}
}

// setUpForThisRun: whether the make target running the tests has set PostgreSQL pg up: 15
// always (make test), another version where the run asks for it (LEDGERCHECK_PG, make test-pg17).
func setUpForThisRun(pg string) bool {
	return pg == "15" || os.Getenv("LEDGERCHECK_PG") == pg
}
