package audit

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// An extension the configuration lists as untrusted is reported however the migration created
// it, and one placed in pg_catalog however the statement named the schema: the audit reads the
// catalog after the install, where neither EXECUTE nor a function hides it. Embedded and on a
// --dsn server.
func TestExtensionsAreReadFromTheCatalog(t *testing.T) {
	scratchtest.NeedPostgres(t)
	cases := []struct{ name, sql, want string }{
		{"EXECUTE format", "DO $$ BEGIN EXECUTE format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA extensions', 'lo'); END $$;", "untrusted-extension"},
		{"EXECUTE of a concatenation", "DO $$ BEGIN EXECUTE 'CREATE ' || 'EXTENSION lo WITH SCHEMA extensions'; END $$;", "untrusted-extension"},
		{"a function the file calls", `CREATE FUNCTION public.setup_attachments() RETURNS void LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN EXECUTE 'CREATE EXTENSION IF NOT EXISTS ' || pg_catalog.quote_ident('l' || 'o') || ' WITH SCHEMA extensions'; END $$;
SELECT public.setup_attachments();
DROP FUNCTION public.setup_attachments();`, "untrusted-extension"},
		{"pg_catalog named at run time", "DO $$ DECLARE s text := 'pg_' || 'catalog'; BEGIN EXECUTE format('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA %I', s); END $$;", "extension-in-pg-catalog"},
	}
	cfg := lint.Config{UntrustedExtensions: []string{"lo"}}
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			srv := auditServer(t, mode)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					db, err := srv.NewDatabase(context.Background(), 1536)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { db.Drop(context.Background()) })
					f, fp, conn := installedIn(t, db, "x.sql", c.sql)
					in := Input{File: f, Footprint: fp, Lint: cfg, Static: lint.Run(f, cfg, lint.Options{})}
					a, err := Ask(context.Background(), conn, in)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.ContainsFunc(a.rows, func(r row) bool { return r.Rule == c.want }) {
						t.Errorf("the catalog shows no %s: %+v", c.want, a.rows)
					}
					// One finding says it: the audit's, or lint's where lint read it too (the
					// audit confirms it then).
					var got []string
					for _, fd := range append(Findings(in, []string{""}, []Answers{a}), in.Static...) {
						got = append(got, fd.String())
					}
					if !slices.ContainsFunc(got, func(s string) bool {
						return strings.HasSuffix(s, "["+c.want+"]") || strings.HasSuffix(s, "["+lint.UnsafeServerAccess+"]")
					}) {
						t.Errorf("no finding of it:\n%s", strings.Join(got, "\n"))
					}
				})
			}
		})
	}
}

// auditServer is the package's server, or a run on the shared --dsn server.
func auditServer(t *testing.T, mode string) *scratch.Server {
	t.Helper()
	if mode == "embedded" {
		return scratchtest.Server(t)
	}
	srv, err := scratch.Start(context.Background(), scratch.Options{DSN: scratchtest.SharedDSNServer(t).DSN})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
