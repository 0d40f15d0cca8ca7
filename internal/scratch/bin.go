package scratch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// DefaultBinDir is where Debian's PostgreSQL 15 server binaries live.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// BinDirEnv names the environment variable that stands in for an empty explicit directory in
// [FindBinDir] when no version is asked for: LEDGERCHECK_PG_BIN=/usr/local/lib/postgresql/17/bin
// runs ledgercheck, and its tests, on another PostgreSQL than the machine's default without
// passing --pg-bin.
const BinDirEnv = "LEDGERCHECK_PG_BIN"

// VersionEnv names the environment variable that asks for a PostgreSQL major version when the
// run does not ([Options.Postgres] 0: no --pg, no postgres: in the configuration):
// LEDGERCHECK_PG=17 runs ledgercheck, and `make test-pg17` its tests, on PostgreSQL 17.
const VersionEnv = "LEDGERCHECK_PG"

// Versions are the PostgreSQL major versions ledgercheck supports: those Supabase projects run.
var Versions = []int{15, 17}

// versionBinDirs are where the server binaries of each version are looked for, in order: 15 from
// Debian's postgresql-15, 17 where `ledgercheck setup --pg 17` installs it, else a distribution's.
var versionBinDirs = map[int][]string{
	15: {DefaultBinDir},
	17: {"/usr/local/lib/postgresql/17/bin", "/usr/lib/postgresql/17/bin"},
}

// RequestedVersion returns the major version a run asks for: major when not 0, else
// $LEDGERCHECK_PG when set, else 0 (none: the embedded cluster takes [FindBinDir]'s default, a
// --dsn server may run any supported version). A version ledgercheck does not support is an
// input error.
func RequestedVersion(major int) (int, error) {
	source := "--pg"
	if major == 0 {
		env := os.Getenv(VersionEnv)
		if env == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(env)
		if err != nil {
			return 0, fault.Input(fmt.Errorf("%s=%s: want a PostgreSQL major version, %s", VersionEnv, env, versionList()))
		}
		major, source = n, VersionEnv+"="
	} else {
		source += " "
	}
	if err := Supported(major); err != nil {
		return 0, fault.Input(fmt.Errorf("%s%d: %w", source, major, err))
	}
	return major, nil
}

// Supported returns an error saying which versions ledgercheck runs unless major is one of
// [Versions].
func Supported(major int) error {
	if slices.Contains(Versions, major) {
		return nil
	}
	return fmt.Errorf("ledgercheck runs PostgreSQL %s", versionList())
}

// versionList is "15 or 17".
func versionList() string {
	s := make([]string, len(Versions))
	for i, v := range Versions {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// setupCommand is the command that installs PostgreSQL major and what the embedded cluster needs
// with it (pgvector, the guard, bubblewrap), which the binary carries (make setup in a checkout
// runs the same script).
func setupCommand(major int) string {
	if major == 0 || major == Versions[0] {
		return "ledgercheck setup"
	}
	return "ledgercheck setup --pg " + strconv.Itoa(major)
}

// FindBinDir returns the directory of the PostgreSQL server binaries: explicit if not empty; else,
// for a major version (major, else $LEDGERCHECK_PG; see [RequestedVersion]), that version's
// directory (Debian's /usr/lib/postgresql/15/bin for 15, /usr/local/lib/postgresql/17/bin where
// `ledgercheck setup --pg 17` installs 17); else $LEDGERCHECK_PG_BIN if set, else the output of
// `pg_config --bindir`, else [DefaultBinDir]. The directory must hold initdb and postgres;
// otherwise the error is an environment error naming the command that installs them. Whether
// the binaries found are of the version asked for is [Start]'s to check.
func FindBinDir(explicit string, major int) (string, error) {
	major, err := RequestedVersion(major)
	if err != nil {
		return "", err
	}
	source := "--pg-bin"
	if explicit == "" && major == 0 {
		explicit, source = os.Getenv(BinDirEnv), BinDirEnv
	}
	candidates := []string{}
	switch {
	case explicit != "":
		candidates = append(candidates, explicit)
	case major != 0:
		candidates = versionBinDirs[major]
	default:
		if pc, err := exec.LookPath("pg_config"); err == nil {
			if out, err := exec.Command(pc, "--bindir").Output(); err == nil {
				candidates = append(candidates, strings.TrimSpace(string(out)))
			}
		}
		candidates = append(candidates, DefaultBinDir)
	}
	for _, dir := range candidates {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	switch {
	case explicit != "":
		return "", fault.Env(fmt.Errorf("no PostgreSQL server binaries (initdb, postgres) in %s %s", source, explicit))
	case major != 0:
		return "", fault.Env(fmt.Errorf("PostgreSQL %d is not installed (no initdb and postgres in %s): run `%s` as root, or pass --pg-bin DIR, or use --dsn URL", major, strings.Join(candidates, " or "), setupCommand(major)))
	}
	return "", fault.Env(fmt.Errorf("no PostgreSQL server binaries found (looked in pg_config --bindir and %s): run `%s` as root, or `apt-get install postgresql-15`, or pass --pg-bin DIR, or use --dsn URL", DefaultBinDir, setupCommand(0)))
}

// checkVersion returns an environment error when a version was asked for (want, not 0) and the
// server is another (got); what names it, e.g. "the --dsn server runs".
func checkVersion(want, got int, what string) error {
	if want == 0 || want == got {
		return nil
	}
	return fault.Env(fmt.Errorf("%s PostgreSQL %d, and this run asks for PostgreSQL %d (--pg, postgres: in the configuration, or %s): use a PostgreSQL %d server, or ask for %d", what, got, want, VersionEnv, want, got))
}

func isExec(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
