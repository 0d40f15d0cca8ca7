package scratch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ledgercheck/internal/fault"
)

// DefaultBinDir is where Debian's PostgreSQL 15 server binaries live.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// BinDirEnv names the environment variable that stands in for an empty explicit directory in
// [FindBinDir]: LEDGERCHECK_PG_BIN=/usr/local/lib/postgresql/17/bin runs ledgercheck, and its
// tests, on another PostgreSQL than the machine's default without passing --pg-bin.
const BinDirEnv = "LEDGERCHECK_PG_BIN"

// FindBinDir returns the directory of the PostgreSQL server binaries: explicit if not empty,
// else $LEDGERCHECK_PG_BIN if set, else the output of `pg_config --bindir`, else
// [DefaultBinDir]. The directory must hold initdb and postgres; otherwise the error is an
// environment error naming the command that installs them.
func FindBinDir(explicit string) (string, error) {
	source := "--pg-bin"
	if explicit == "" {
		explicit, source = os.Getenv(BinDirEnv), BinDirEnv
	}
	candidates := []string{}
	if explicit != "" {
		candidates = append(candidates, explicit)
	} else {
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
	if explicit != "" {
		return "", fault.Env(fmt.Errorf("no PostgreSQL server binaries (initdb, postgres) in %s %s", source, explicit))
	}
	return "", fault.Env(fmt.Errorf("no PostgreSQL server binaries found (looked in pg_config --bindir and %s): run `make setup` as root, or `apt-get install postgresql-15`, or pass --pg-bin DIR, or use --dsn URL", DefaultBinDir))
}

func isExec(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
