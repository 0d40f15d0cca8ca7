package scratch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch/guard"
)

// guardLibrary is ledgercheck's server module for PostgreSQL 15 (scratch/guard): it gives
// non-superusers PostgreSQL 16's CREATEROLE rules, under which a role may only grant, alter or
// drop roles it holds ADMIN OPTION on. Without it, PostgreSQL 15's CREATEROLE may grant any
// non-superuser role, pg_execute_server_program included, to the install role.
const guardLibrary = "ledgercheck_guard"

// guardFor returns the library to preload into an embedded cluster of the given major version
// ("" when the server needs none), or an environment error when it is needed but missing.
// noGuard (tests of the other defence layers only) starts a PostgreSQL 15 cluster without it.
func guardFor(binDir string, major int, noGuard bool) (string, error) {
	switch {
	case major < 15:
		return "", fault.Env(fmt.Errorf("PostgreSQL %d in %s is not supported: ledgercheck runs PostgreSQL 15 or later (run `%s`, or pass --pg-bin)", major, binDir, setupCommand(0)))
	case major >= 16 || noGuard:
		return "", nil
	}
	lib := filepath.Join(pkgLibDir(binDir), guardLibrary+".so")
	if _, err := os.Stat(lib); err != nil {
		return "", fault.Env(errors.New("ledgercheck's PostgreSQL 15 guard module (" + lib + ") is not installed; it keeps migrations from granting themselves pg_execute_server_program and other roles: run `" + setupCommand(15) + "` as root"))
	}
	return guardLibrary, nil
}

// pkgLibDir returns the directory of the server's loadable modules: `pg_config --pkglibdir`
// from binDir when there is one, else binDir/../lib (Debian's layout).
func pkgLibDir(binDir string) string {
	if d, ok := pkgLibDirs.Load(binDir); ok {
		return d.(string)
	}
	d := filepath.Join(filepath.Dir(binDir), "lib")
	if out, err := exec.Command(filepath.Join(binDir, "pg_config"), "--pkglibdir").Output(); err == nil {
		if o := strings.TrimSpace(string(out)); o != "" {
			d = o
		}
	}
	pkgLibDirs.Store(binDir, d)
	return d
}

// pkgLibDirs remembers pkgLibDir's answers for the process.
var pkgLibDirs sync.Map

// guardDigest is the version a module built from the guard's source (guard.Source) reports.
func guardDigest() string { return guard.Digest() }
