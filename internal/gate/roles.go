package gate

import (
	"context"
	"regexp"
	"slices"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Roles are cluster-wide, and every install of the run shares the server's: a variant's own
// install, its install under the other privilege model, its upgrade audit, the other variants'.
// A file that creates a role (CREATE ROLE ledger_agent) would find it created by another of
// those installs (its CREATE ROLE fails: role already exists) or created by itself before (its
// IF NOT EXISTS skips what follows), and one that names a role it does not create could be
// granting to another install's. So the installs of files that create or name roles of their
// own (not the environment's: scratch.EnvironmentRoles) take the server's roles by turns
// (scratch.Server.TakeRoles, one server's turns for every run on it: a repository's sidecars,
// lint --install's files): a turn starts from the environment's roles alone, and when it ends
// the roles created during it step aside (scratch.RoleTurn.StepAside: renamed, with all they
// hold). A variant's turn lasts
// from its install to the end of its rerun audit; its install under the other privilege model
// takes place inside it, while the variant's own roles step aside, and is audited at once; its
// upgrade audit takes a turn of its own. Installs of files that name no role of their own run
// beside them, as every install does.

// exclusive takes a turn with the server's roles for an install the gate does not run itself
// (the upgrade audit's): it returns the function that ends it.
func (p *pipeline) exclusive(ctx context.Context) (func(context.Context) error, error) {
	t, err := p.srv.TakeRoles(ctx)
	if err != nil {
		return nil, err
	}
	return t.Done, nil
}

// createsRoleRE finds a CREATE ROLE, USER or GROUP in the template of SQL built at run time.
var createsRoleRE = regexp.MustCompile(`(?i)\bcreate\s+(role|user|group)\b`)

// namesRoles reports whether f creates or names a role that is not the environment's: CREATE,
// ALTER or DROP ROLE, GRANT role, a grant, policy or default privilege to one, or a format()
// template of SQL built at run time that creates one.
func namesRoles(f *pgsql.File) bool {
	if f == nil {
		return false
	}
	env := scratch.EnvironmentRoles()
	own := func(names ...string) bool {
		for _, n := range names {
			switch n {
			case "", "public", "current_user", "session_user", "current_role":
				continue
			}
			if !slices.Contains(env, n) && (len(n) < 3 || n[:3] != "pg_") {
				return true
			}
		}
		return false
	}
	for i := range f.Ops {
		op := &f.Ops[i]
		for _, o := range op.Objects {
			if o.Kind == pgsql.KindRole && own(o.Name.Name) {
				return true
			}
		}
		if g := op.Grant(); g != nil && (own(g.Grantees...) || own(g.ForRoles...)) {
			return true
		}
		if p := op.Policy(); p != nil && own(p.Roles...) {
			return true
		}
		if d := op.Dynamic(); d != nil && createsRoleRE.MatchString(d.SQL) {
			return true
		}
	}
	return false
}

// previousNamesRoles reports whether a previous version names roles of its own ([namesRoles]);
// one that does not parse names none (its install fails, which the upgrade audit reports).
func previousNamesRoles(prev *SQLFile) bool {
	f, _ := pgsql.Parse(prev.Name, prev.Src)
	return namesRoles(f)
}
