package scratch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Base is what every database of a dimension holds before a migration runs in it, after the
// Supabase environment: the Open Brain prerequisites (unless NoOpenBrain) and then whatever
// Prepare runs (another sidecar the migration depends on). Each (dimension, Base) has a template
// of its own, built on first use; later databases are copies of it. The zero Base is the Open
// Brain prerequisites alone, as [Server.NewDatabase] gives.
type Base struct {
	// NoOpenBrain leaves the Open Brain core and agent-memory schema out: the template holds the
	// Supabase environment and what Prepare adds.
	NoOpenBrain bool
	// Privileges is the privilege model of the project the template stands for: the zero
	// value, a new hosted project's (no table privileges for the API roles by default), or
	// [OldDefaultPrivileges].
	Privileges PrivilegeModel
	// Prepare, when not nil, runs in each new template after the prerequisites (db.Dim is the
	// template's dimension). Its error is returned, unchanged, by every [Server.NewDatabaseFrom]
	// for that template, so a caller can tell a statement its SQL runs from a failing server.
	Prepare func(ctx context.Context, db *Database) error
	// Key identifies what Prepare runs: Bases with the same NoOpenBrain and Key share their
	// templates, so it must change whenever Prepare's SQL does (a digest of the files).
	Key string
	// Layers, when not empty, run in order in each new template after the prerequisites (and
	// before Prepare): the files of the sidecars a migration needs, one layer each. A template
	// whose layers begin with those of another known template (see [Server.Expect]) is built
	// as a copy of that one, running only the layers it adds: a chain of N Bases, each one
	// layer longer than the one before, costs N layer runs, not N²/2 (layers.go).
	Layers []Layer
	// Describe, when not nil, runs once on each new template after Prepare, on a superuser
	// session of it that built the environment (so its catalog caches are warm), and returns a
	// description of the template that holds for every copy of it: the gate's catalog snapshot
	// of a database before anything is installed. It is kept with the template, in the cache
	// entry too, and returned by [Server.TemplateDescription]. It must depend only on the
	// template's contents. (A template has no database settings of its own, which copies would
	// not inherit: the warden stops user SQL that sets them, warden.go.)
	Describe func(ctx context.Context, conn *pgx.Conn, db *Database) ([]byte, error)
}

// PrivilegeModel names the default privileges on public of the project a template stands for.
type PrivilegeModel string

// The privilege models. A sidecar is installed into both kinds of project.
const (
	// NewProjectPrivileges: hosted Supabase projects since 2026-10-30 (new tables in public
	// get no privileges for anon, authenticated and service_role until a GRANT).
	NewProjectPrivileges PrivilegeModel = ""
	// OldDefaultPrivileges: self-hosted projects, and every project created before the change,
	// whose default privileges grant ALL on new tables, sequences and functions in public to
	// anon, authenticated and service_role (env/models/old-defaults.sql).
	OldDefaultPrivileges PrivilegeModel = "old-defaults"
)

// templateKey identifies a template: a dimension and a [Base].
type templateKey struct {
	dim         int
	noOpenBrain bool
	key         string
	privileges  PrivilegeModel
}

func keyOfBase(dim int, b Base) templateKey {
	key := b.Key
	if n := len(b.Layers); n > 0 {
		key = b.Layers[n-1].Key + "+" + b.Key
	}
	return templateKey{dim: dim, noOpenBrain: b.NoOpenBrain, key: key, privileges: b.Privileges}
}

// label names the template's database: t<dim> for the zero Base, t<dim>_<seq> for another.
func (k templateKey) label(seq int) string {
	if !k.noOpenBrain && k.key == "" && k.privileges == NewProjectPrivileges {
		return fmt.Sprintf("t%d", k.dim)
	}
	return fmt.Sprintf("t%d_%d", k.dim, seq)
}

// NewDatabaseFrom returns a new scratch database at vector dimension dim that starts as base
// says. The first call for a dimension and base builds their template; later calls copy it.
func (s *Server) NewDatabaseFrom(ctx context.Context, dim int, base Base) (*Database, error) {
	if err := CheckDim(dim); err != nil {
		return nil, fault.Input(fmt.Errorf("dimension %w", err))
	}
	tpl, err := s.template(ctx, dim, base)
	if err != nil {
		return nil, err
	}
	return s.createDatabase(ctx, dim, tpl, "")
}

// TemplateDescription returns what base.Describe said of the template of dim and base when the
// template was built (in this run or, from the cache, in the run that built the entry); nil
// when the template is not built yet, was built without a Describe, or was not described (see
// [Base.Describe]).
func (s *Server) TemplateDescription(dim int, base Base) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.templates[keyOfBase(dim, base)]; t != nil {
		return t.desc
	}
	return nil
}

// DefaultDim is the vector dimension used when none is given: the shipped artifact's (the
// prerequisites' thoughts.embedding is vector(1536)).
const DefaultDim = 1536

// MaxDim is the largest vector dimension pgvector's vector type takes.
const MaxDim = 16000

// CheckDim is the one check of a vector dimension (1 to [MaxDim]); the error reads after the
// name of what carries the dimension: "--port-dim 0 is out of range: want 1 to 16000".
func CheckDim(dim int) error {
	if dim < 1 || dim > MaxDim {
		return fmt.Errorf("%d is out of range: want 1 to %d", dim, MaxDim)
	}
	return nil
}
