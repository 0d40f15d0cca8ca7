package lint

import (
	"slices"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// serverFileFunctions read or write files on the database server, or list its directories.
var serverFileFunctions = []string{"pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "lo_import", "lo_export", "pg_file_write", "pg_file_rename", "pg_file_unlink", "pg_logdir_ls", "pg_ls_logdir", "pg_ls_waldir", "pg_ls_tmpdir", "pg_ls_archive_statusdir"}

// PgCatalogExtensions are the extensions that belong in pg_catalog: Supabase pins pg_cron's
// schema there (supautils' extensions_parameter_overrides), and plpgsql lives there.
var PgCatalogExtensions = []string{"pg_cron", "plpgsql"}

// UnsafeServerAccess is the id of the rule below.
const UnsafeServerAccess = "unsafe-server-access"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: UnsafeServerAccess, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			switch {
			case op.Verb == pgsql.VerbCopy && op.Copy() != nil && op.Copy().Program:
				p.Report(op.Pos, op.Object().String(), "COPY ... PROGRAM runs %q on the database server%s", op.Copy().File, where(op))
			case op.Verb == pgsql.VerbCopy && op.Copy() != nil && op.Copy().File != "":
				dir := "reads"
				if !op.Copy().From {
					dir = "writes"
				}
				p.Report(op.Pos, op.Object().String(), "COPY %s the server file %q%s", dir, op.Copy().File, where(op))
			case op.Verb == pgsql.VerbAlterSystem:
				p.Report(op.Pos, "", "ALTER SYSTEM changes the server configuration%s", where(op))
			case op.Verb == pgsql.VerbCreate && op.Object().Kind == pgsql.KindLanguage:
				p.Report(op.Pos, op.Object().String(), "CREATE LANGUAGE %s installs a procedural language%s", op.Object().Name, where(op))
			case op.Verb == pgsql.VerbCreate && op.Object().Kind == pgsql.KindExtension && slices.Contains(p.Config.UntrustedExtensions, op.Object().Name.Name):
				p.Report(op.Pos, op.Object().String(), "CREATE EXTENSION %s installs an untrusted extension%s", op.Object().Name, where(op))
			case op.Extension() != nil && op.Extension().Schema == "pg_catalog" && !slices.Contains(PgCatalogExtensions, op.Object().Name.Name):
				p.Report(op.Pos, op.Object().String(), "%s places extension %s in pg_catalog, where every session resolves names before any other schema%s", op.Tag, op.Object().Name, where(op))
			}
			for _, c := range op.Calls {
				if (c.Name.Schema == "" || c.Name.Schema == "pg_catalog") && slices.Contains(serverFileFunctions, c.Name.Name) {
					p.Report(c.Pos, "", "%s() accesses files on the database server%s", c.Name.Name, where(op))
				}
			}
		}
	},
})
