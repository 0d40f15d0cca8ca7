// Package scripts holds the shell scripts that install what ledgercheck needs, and carries them
// into the binary: setup.sh (make setup, and `ledgercheck setup`), guard-container.sh (the guard
// loaded into a PostgreSQL 15 container), and the files setup.sh builds or installs from besides
// the guard's source (pgconfig/pg_config.c, apparmor/ledgercheck-bwrap). Its tests run the
// scripts, on this machine and on simulated others (a fake root, LEDGERCHECK_SETUP_SYSROOT).
package scripts

import "embed"

// Files holds setup.sh, guard-container.sh, pgconfig/pg_config.c and apparmor/ledgercheck-bwrap,
// under those names.
//
//go:embed setup.sh guard-container.sh pgconfig/pg_config.c apparmor/ledgercheck-bwrap
var Files embed.FS
