package scratch

import (
	"embed"

	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The SQL every scratch database starts from, embedded so that ledgercheck builds a scratch
// database from anywhere: the Supabase environment (roles, schemas, auth and storage tables,
// extensions, default privileges) is the package internal/scratch/env, prereq/ the Open Brain
// prerequisites (the core and the agent-memory schema) at the database's vector dimension,
// written as :dim. They are the tool's environment, not the product under review (that is
// migrations/).
//
//go:embed all:prereq
var envFiles embed.FS

// EnvScript is one embedded SQL file of the environment or the prerequisites.
type EnvScript struct {
	// Name is the path below internal/scratch, e.g. "env/10_database.sql".
	Name string
	// SQL is the file's content. The prerequisites write their vector dimension as `:dim`.
	SQL string
}

// RolesScript returns the cluster-wide roles script, applied once per server as a superuser.
func RolesScript() EnvScript { return EnvScript(env.Roles()) }

// EnvironmentScripts returns the per-database Supabase environment, applied as a superuser, for
// a server where user SQL runs as installRole and the superuser is adminRole (postgres and
// supabase_admin on Supabase).
func EnvironmentScripts(installRole, adminRole string) []EnvScript {
	var out []EnvScript
	for _, s := range env.Database(installRole, adminRole) {
		out = append(out, EnvScript(s))
	}
	return out
}

// OldDefaultsScript returns the old default privileges on public ([OldDefaultPrivileges]),
// applied as a superuser after [EnvironmentScripts] in the templates of that model.
func OldDefaultsScript(installRole, adminRole string) EnvScript {
	return EnvScript(env.OldDefaults(installRole, adminRole))
}

// Prerequisites returns the Open Brain core and agent-memory scripts in install order, applied
// as the install role after the environment.
func Prerequisites() []EnvScript { return readDir("prereq") }

func mustRead(name string) EnvScript {
	b, err := envFiles.ReadFile(name)
	if err != nil {
		panic("scratch: embedded file missing: " + name) // a build defect, not a runtime condition
	}
	return EnvScript{Name: name, SQL: string(b)}
}

func readDir(dir string) []EnvScript {
	entries, err := fs.ReadDir(envFiles, dir)
	if err != nil {
		panic("scratch: embedded dir missing: " + dir)
	}
	var out []EnvScript
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		out = append(out, mustRead(path.Join(dir, e.Name())))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
