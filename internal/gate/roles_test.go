package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// Issue 31: roles are cluster-wide, and every install of a run shares the server's. A file that
// creates a role must get the same verdict however the run's other installs of it (under the
// other privilege model, as another variant, as an upgrade) are timed.

// readerRoleFile creates a role, a table without row level security and a grant of it to the
// role: under the old default privileges of a self-hosted project anon reads it too.
const readerRoleFile = `-- A read-only role for the analytics service, and the table it reads.
CREATE ROLE ledger_reader NOLOGIN;
CREATE TABLE IF NOT EXISTS public.ledger_notes (
  id   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  note text NOT NULL
);
GRANT SELECT ON public.ledger_notes TO ledger_reader;
NOTIFY pgrst, 'reload schema';
`

// dsnRoles is the run on the shared --dsn stand-in server the role tests share, as they share
// the package's embedded server: one run's templates, built once.
var dsnRoles struct {
	once sync.Once
	srv  *scratch.Server
	err  error
}

// roleServers are the servers the role tests run on: the package's shared one, and one run on
// the shared --dsn stand-in server, started by the first role test and left open for the next:
// it ends with the stand-in server, which scratchtest.Main stops (a fast shutdown, ending its
// sessions) after the package's tests.
func roleServers(t *testing.T) map[string]*scratch.Server {
	dsn := scratchtest.SharedDSNServer(t)
	dsnRoles.once.Do(func() {
		dsnRoles.srv, dsnRoles.err = scratch.Start(context.Background(), scratch.Options{DSN: dsn.DSN})
	})
	if dsnRoles.err != nil {
		t.Fatal(dsnRoles.err)
	}
	return map[string]*scratch.Server{"embedded": scratchtest.Server(t), "dsn": dsnRoles.srv}
}

// findingsOf lists a report's findings as "phase: rule (models) message".
func findingsOf(rep *report.Report) []string {
	var out []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			out = append(out, fmt.Sprintf("%s: %s %v %s", ph.Name, f.Rule, f.Models, f.Message))
		}
	}
	return out
}

// TestRoleCreatingFileIsAuditedUnderBothModels: the file's install under the old default
// privileges does not find the role its own install created: it is audited, and anon's reach on
// a self-hosted project is reported, not an install-failed finding.
func TestRoleCreatingFileIsAuditedUnderBothModels(t *testing.T) {
	for name, srv := range roleServers(t) {
		t.Run(name, func(t *testing.T) {
			res, err := Run(context.Background(), Request{
				Artifact: Variant{Name: "artifact", File: "reader.sql", Src: []byte(readerRoleFile), Dim: 1536},
				Steps:    Steps{Audit: true, CrossCheck: true},
				Lint:     config.DefaultLint(), Server: srv,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := findingsOf(res.Report)
			exposed := slices.ContainsFunc(got, func(s string) bool {
				return strings.HasPrefix(s, "audit artifact: rls-disabled-in-public [old-defaults]")
			})
			failed := slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "install-failed") })
			if !exposed || failed {
				t.Errorf("findings %q, want rls-disabled-in-public on self-hosted projects and no install-failed", got)
			}
		})
	}
}

// TestVariantsCreatingTheSameRoleInstallAlike: an artifact and a port that both create the role
// install and are audited alike, round after round, whichever takes the server's roles first;
// each one's rerun fails on its own CREATE ROLE (the file is not safe to run twice), never its
// install on the other's.
func TestVariantsCreatingTheSameRoleInstallAlike(t *testing.T) {
	for name, srv := range roleServers(t) {
		t.Run(name, func(t *testing.T) {
			for round := range 3 {
				res, err := Run(context.Background(), Request{
					Artifact: Variant{Name: "artifact", File: "a.sql", Src: []byte(readerRoleFile), Dim: 1536},
					Ports:    []Port{{Variant: Variant{Name: "port", File: "b.sql", Src: []byte(readerRoleFile), Dim: 1024}}},
					Steps:    Steps{Audit: true, CrossCheck: true, Rerun: true, Parity: true},
					Lint:     config.DefaultLint(), Server: srv, Times: 2,
				})
				if err != nil {
					t.Fatal(err)
				}
				got := findingsOf(res.Report)
				for _, want := range []string{
					"audit artifact: rls-disabled-in-public [old-defaults]", "audit port: rls-disabled-in-public [old-defaults]",
					`rerun artifact: rerun-failed [] run 2 of 2 failed: role "ledger_reader" already exists`,
					`rerun port: rerun-failed [] run 2 of 2 failed: role "ledger_reader" already exists`,
				} {
					if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want) }) {
						t.Errorf("round %d: no finding %q in %q", round, want, got)
					}
				}
				if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "install-failed") }) {
					t.Errorf("round %d: an install failed: %q", round, got)
				}
			}
		})
	}
}

// TestUpgradeOfARoleCreatingFileHasTheRolesToItself: a file whose CREATE ROLE its previous
// version lacks upgrades cleanly: the upgrade audit's install takes the server's roles after the
// variant's own, which created the role first, and never fails on it.
func TestUpgradeOfARoleCreatingFileHasTheRolesToItself(t *testing.T) {
	previous := "CREATE TABLE IF NOT EXISTS public.ledger_notes (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text NOT NULL);\nNOTIFY pgrst, 'reload schema';\n"
	file := "CREATE ROLE ledger_exporter NOLOGIN;\n" + previous + "GRANT SELECT ON public.ledger_notes TO ledger_exporter;\n"
	for name, srv := range roleServers(t) {
		t.Run(name, func(t *testing.T) {
			res, err := Run(context.Background(), Request{
				Artifact: Variant{Name: "artifact", File: "notes.sql", Src: []byte(file), Dim: 1536,
					Previous: &SQLFile{Name: "notes_v1.sql", Src: []byte(previous)}},
				Steps: Steps{Audit: true, Rerun: true},
				Lint:  config.DefaultLint(), Server: srv, Times: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findingsOf(res.Report) {
				if strings.Contains(f, "install-failed") || strings.Contains(f, "upgrade-") {
					t.Errorf("%s", f)
				}
			}
		})
	}
}
