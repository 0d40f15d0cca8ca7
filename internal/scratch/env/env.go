// Package env is the Supabase environment every scratch database starts from, as the SQL the
// scratch server runs (the roles once per server, then the schemas, auth and storage tables,
// extensions and default privileges in each template database) and as the one place lint reads
// the environment's default privileges from, so that the static model and the databases cannot
// drift apart. It imports nothing of ledgercheck's and links no parser.
package env

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.sql models/*.sql
var files embed.FS

// Script is one SQL file of the environment.
type Script struct {
	// Name is the path below internal/scratch, e.g. "env/10_database.sql".
	Name string
	// SQL is the file's content.
	SQL string
}

// RolesFile is the cluster-wide roles script, applied once per server as a superuser.
const RolesFile = "00_roles.sql"

// Roles returns the cluster-wide roles script.
func Roles() Script {
	b, err := files.ReadFile(RolesFile)
	if err != nil {
		panic("env: embedded file missing: " + RolesFile) // a build defect, not a runtime condition
	}
	return Script{Name: path.Join("env", RolesFile), SQL: string(b)}
}

// Database returns the per-database environment in the order it runs, applied as a superuser,
// for a server where user SQL runs as installRole and the superuser is adminRole (postgres and
// supabase_admin on Supabase): the scripts name them as the psql variables :"install_role" and
// :"admin_role", replaced here by the quoted names.
func Database(installRole, adminRole string) []Script {
	r := roleReplacer(installRole, adminRole)
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("env: embedded files missing")
	}
	var out []Script
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") || e.Name() == RolesFile {
			continue
		}
		b, err := files.ReadFile(e.Name())
		if err != nil {
			panic("env: embedded file missing: " + e.Name())
		}
		out = append(out, Script{Name: path.Join("env", e.Name()), SQL: r.Replace(string(b))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// OldDefaultsFile is the script of the old default privileges on public (self-hosted projects,
// and hosted ones created before 2026), below env/.
const OldDefaultsFile = "models/old-defaults.sql"

// OldDefaults returns the old default privileges on public, for a server whose roles are
// installRole and adminRole as in [Database]: applied as a superuser after the environment, it
// turns a template of a new hosted project into one of a self-hosted project.
func OldDefaults(installRole, adminRole string) Script {
	b, err := files.ReadFile(OldDefaultsFile)
	if err != nil {
		panic("env: embedded file missing: " + OldDefaultsFile)
	}
	return Script{Name: path.Join("env", OldDefaultsFile), SQL: roleReplacer(installRole, adminRole).Replace(string(b))}
}

// roleReplacer replaces the psql variables :"install_role" and :"admin_role" by the quoted names.
func roleReplacer(installRole, adminRole string) *strings.Replacer {
	return strings.NewReplacer(`:"install_role"`, quoteIdent(installRole), `:"admin_role"`, quoteIdent(adminRole))
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
