package scratch

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The SQL every scratch database starts from, embedded so that ledgercheck builds a scratch
// database from anywhere: env/ is the Supabase environment (roles, schemas, auth functions,
// extensions, default privileges), prereq/ the Open Brain prerequisites (the core and the
// agent-memory schema) at the database's vector dimension, written as :dim. They are the
// tool's environment, not the product under review (that is migrations/).
//
//go:embed env all:prereq
var envFiles embed.FS

// EnvScript is one embedded SQL file of the environment or the prerequisites.
type EnvScript struct {
	// Name is the path below internal/scratch, e.g. "env/10_database.sql".
	Name string
	// SQL is the file's content. The prerequisites write their vector dimension as `:dim`.
	SQL string
}

// RolesScript returns the cluster-wide roles script, applied once per server as a superuser.
func RolesScript() EnvScript { return mustRead("env/00_roles.sql") }

// EnvironmentScripts returns the per-database Supabase environment, applied as a superuser, for
// a server where user SQL runs as installRole and the superuser is adminRole (postgres and
// supabase_admin on Supabase): the scripts name them as the psql variables :"install_role" and
// :"admin_role".
func EnvironmentScripts(installRole, adminRole string) []EnvScript {
	r := strings.NewReplacer(`:"install_role"`, quoteIdent(installRole), `:"admin_role"`, quoteIdent(adminRole))
	scripts := readDir("env", func(n string) bool { return n != "00_roles.sql" })
	for i := range scripts {
		scripts[i].SQL = r.Replace(scripts[i].SQL)
	}
	return scripts
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Prerequisites returns the Open Brain core and agent-memory scripts in install order, applied
// as the install role after the environment.
func Prerequisites() []EnvScript { return readDir("prereq", nil) }

func mustRead(name string) EnvScript {
	b, err := envFiles.ReadFile(name)
	if err != nil {
		panic("scratch: embedded file missing: " + name) // a build defect, not a runtime condition
	}
	return EnvScript{Name: name, SQL: string(b)}
}

func readDir(dir string, keep func(string) bool) []EnvScript {
	entries, err := fs.ReadDir(envFiles, dir)
	if err != nil {
		panic("scratch: embedded dir missing: " + dir)
	}
	var out []EnvScript
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") || (keep != nil && !keep(e.Name())) {
			continue
		}
		out = append(out, mustRead(path.Join(dir, e.Name())))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
