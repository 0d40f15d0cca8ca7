package observe_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/observe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// models are the privilege models a sidecar is installed into, as lint names them, with the
// scratch templates' privileges.
var models = []model{{"new-defaults", scratch.NewProjectPrivileges}, {"old-defaults", scratch.OldDefaultPrivileges}}

// observed installs sql (named name) over the prerequisites at 1536 under each privilege model,
// observes each install, and returns the findings of both together, and the observations.
func observed(t testing.TB, name, sql string) ([]finding.Finding, []*observe.Observation) {
	t.Helper()
	return observedOn(t, scratchtest.Server(t), name, sql, models...)
}

// model is a privilege model, as lint names it, with the scratch templates' privileges.
type model struct {
	name string
	priv scratch.PrivilegeModel
}

// observedOn is observed on srv, under the models ms.
func observedOn(t testing.TB, srv *scratch.Server, name, sql string, ms ...model) ([]finding.Finding, []*observe.Observation) {
	t.Helper()
	ctx := context.Background()
	f, err := sqlscript.Parse(name, []byte(sql), 1536)
	if err != nil {
		t.Fatal(err)
	}
	var obs []*observe.Observation
	for _, m := range ms {
		db, err := srv.NewDatabaseFrom(ctx, 1536, scratch.Base{Privileges: m.priv})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Drop(context.Background()) })
		fp, after, err := install.Footprint(ctx, db, sqlscript.Script(f), nil, introspect.Options{})
		if err != nil {
			t.Fatalf("installing %s under %s: %v", name, m.name, err)
		}
		ob, err := observe.Run(ctx, db, observe.Input{Model: m.name, Scope: observe.ScopeOf(fp, []string{"public", "graphql_public"}), Snapshot: after, Dim: 1536})
		if err != nil {
			t.Fatalf("observing %s under %s: %v", name, m.name, err)
		}
		obs = append(obs, ob)
	}
	return observe.Findings(observe.FindingsInput{File: f}, obs), obs
}

// lines renders findings as "line rule [models]: message".
func lines(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.Pos.String() + " " + f.Rule
		if len(f.Models) > 0 {
			s += " " + strings.Join(f.Models, ",")
		}
		out = append(out, s+": "+f.Message)
	}
	return out
}
