// Package migrations ships the SQL that ledgercheck installs into scratch databases: the
// Supabase environment (env/), the Open Brain prerequisites (prereq/), the decision-ledger
// artifact (decision_ledger.sql) and its 1024-dim production port (ports/).
//
// The environment and the prerequisites are embedded in the binary, so that ledgercheck can build
// a scratch database from anywhere; the artifact and port are read from the paths the user passes.
package migrations

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed env all:prereq
var files embed.FS

// Script is one embedded SQL file.
type Script struct {
	// Name is the path below migrations/, e.g. "env/10_database.sql".
	Name string
	// SQL is the file's content. The prerequisites write their vector dimension as `:dim`.
	SQL string
}

// Roles returns the cluster-wide roles script, applied once per server as a superuser.
func Roles() Script { return mustRead("env/00_roles.sql") }

// Environment returns the per-database Supabase environment, applied as a superuser, for a
// server where user SQL runs as installRole and the superuser is adminRole (postgres and
// supabase_admin on Supabase): the scripts name them as the psql variables :"install_role" and
// :"admin_role".
func Environment(installRole, adminRole string) []Script {
	r := strings.NewReplacer(`:"install_role"`, quoteIdent(installRole), `:"admin_role"`, quoteIdent(adminRole))
	scripts := readDir("env", func(n string) bool { return n != "00_roles.sql" })
	for i := range scripts {
		scripts[i].SQL = r.Replace(scripts[i].SQL)
	}
	return scripts
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Prerequisites returns the Open Brain core and agent-memory scripts in install order, applied as
// the install role after the environment.
func Prerequisites() []Script { return readDir("prereq", nil) }

func mustRead(name string) Script {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("migrations: embedded file missing: " + name) // a build defect, not a runtime condition
	}
	return Script{Name: name, SQL: string(b)}
}

func readDir(dir string, keep func(string) bool) []Script {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		panic("migrations: embedded dir missing: " + dir)
	}
	var out []Script
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") || (keep != nil && !keep(e.Name())) {
			continue
		}
		out = append(out, mustRead(path.Join(dir, e.Name())))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
