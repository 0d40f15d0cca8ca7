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

//go:embed *.sql models/*.sql ext/*.control ext/*.sql
var files embed.FS

// File is one SQL file of the environment.
type File struct {
	// Name is the path below internal/scratch, e.g. "env/10_database.sql".
	Name string
	// SQL is the file's content.
	SQL string
}

// RolesFile is the cluster-wide roles script, applied once per server as a superuser.
const RolesFile = "00_roles.sql"

// Roles returns the cluster-wide roles script.
func Roles() File {
	b, err := files.ReadFile(RolesFile)
	if err != nil {
		panic("env: embedded file missing: " + RolesFile) // a build defect, not a runtime condition
	}
	return File{Name: path.Join("env", RolesFile), SQL: string(b)}
}

// Database returns the per-database environment in the order it runs, applied as a superuser,
// for a server where user SQL runs as installRole and the superuser is adminRole (postgres and
// supabase_admin on Supabase): the scripts name them as the psql variables :"install_role" and
// :"admin_role", replaced here by the quoted names.
//
// They also name each stand-in extension's script as the psql variable :'standin_NAME' (a
// string literal; NAME is the extension's), which a server that does not offer the stand-in runs
// as plain SQL (see [PlainScript]).
func Database(installRole, adminRole string) []File {
	vars := roleVars(installRole, adminRole)
	for _, name := range ExtensionNames() {
		vars = append(vars, `:'standin_`+name+`'`, quoteLiteral(PlainScript(name)))
	}
	r := strings.NewReplacer(vars...)
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("env: embedded files missing")
	}
	var out []File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") || e.Name() == RolesFile {
			continue
		}
		b, err := files.ReadFile(e.Name())
		if err != nil {
			panic("env: embedded file missing: " + e.Name())
		}
		out = append(out, File{Name: path.Join("env", e.Name()), SQL: r.Replace(string(b))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ExtensionDir is the directory of files that Extensions returns: ledgercheck's stand-ins for the
// extensions every Supabase project has and no Debian package provides as Supabase runs them
// (pg_cron 1.6, pg_net, supabase_vault; ext/README.md says why each is a stand-in).
const ExtensionDir = "ext"

// Extensions returns the stand-in extensions' control and script files (Name is the file's base
// name, as it goes into the server's extension directory), sorted by name. The scratch server
// shows them to PostgreSQL in its extension directory, inside the sandbox only; the
// per-database scripts create them.
func Extensions() []File {
	entries, err := fs.ReadDir(files, ExtensionDir)
	if err != nil {
		panic("env: embedded files missing: " + ExtensionDir)
	}
	var out []File
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".control") || strings.HasSuffix(e.Name(), ".sql")) {
			continue
		}
		b, err := files.ReadFile(path.Join(ExtensionDir, e.Name()))
		if err != nil {
			panic("env: embedded file missing: " + e.Name())
		}
		out = append(out, File{Name: e.Name(), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ExtensionNames returns the names of the stand-in extensions (their control files' base names).
func ExtensionNames() []string {
	var out []string
	for _, s := range Extensions() {
		if n, ok := strings.CutSuffix(s.Name, ".control"); ok {
			out = append(out, n)
		}
	}
	return out
}

// PlainScript returns the script of the stand-in extension name as plain SQL, for a server that
// does not offer the stand-in (a --dsn server): the same objects, in the same schemas, outside
// any extension, less the pg_extension_config_dump calls, which only an extension's script may
// make. It panics on a name that is not a stand-in's.
func PlainScript(name string) string {
	for _, s := range Extensions() {
		if strings.HasPrefix(s.Name, name+"--") && strings.HasSuffix(s.Name, ".sql") {
			var b strings.Builder
			for _, line := range strings.SplitAfter(s.SQL, "\n") {
				if !strings.HasPrefix(line, "SELECT pg_catalog.pg_extension_config_dump(") {
					b.WriteString(line)
				}
			}
			return b.String()
		}
	}
	panic("env: no stand-in extension " + name)
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// OldDefaultsFile is the script of the old default privileges on public (self-hosted projects,
// and hosted ones created before 2026), below env/.
const OldDefaultsFile = "models/old-defaults.sql"

// OldDefaults returns the old default privileges on public, for a server whose roles are
// installRole and adminRole as in [Database]: applied as a superuser after the environment, it
// turns a template of a new hosted project into one of a self-hosted project.
func OldDefaults(installRole, adminRole string) File {
	b, err := files.ReadFile(OldDefaultsFile)
	if err != nil {
		panic("env: embedded file missing: " + OldDefaultsFile)
	}
	return File{Name: path.Join("env", OldDefaultsFile), SQL: roleReplacer(installRole, adminRole).Replace(string(b))}
}

// roleReplacer replaces the psql variables :"install_role" and :"admin_role" by the quoted names.
func roleReplacer(installRole, adminRole string) *strings.Replacer {
	return strings.NewReplacer(roleVars(installRole, adminRole)...)
}

// roleVars are the psql variables :"install_role" and :"admin_role" and their quoted names, as
// strings.NewReplacer takes them.
func roleVars(installRole, adminRole string) []string {
	return []string{`:"install_role"`, quoteIdent(installRole), `:"admin_role"`, quoteIdent(adminRole)}
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
