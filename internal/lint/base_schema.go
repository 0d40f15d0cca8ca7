package lint

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// BaseSchema is the id of the rule below.
const BaseSchema = "base-schema"

var ruleBaseSchema = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: BaseSchema, Severity: finding.SevError,
	}),
})

// anyMigration are the rules a base schema is still judged by: they do not depend on what the
// file may change.
var anyMigration = map[string]bool{
	ruleParseError.ID: true, ruleTooComplex.ID: true, "unsupported-statement": true, "unsafe-server-access": true,
	"concurrently-in-transaction": true, "unterminated-transaction": true, ruleInvalidSuppression.ID: true,
}

// baseSchema folds the findings of a file that defines prerequisite objects (a prerequisite
// table, or at least two prerequisite objects) into one base-schema finding, and returns the
// findings unchanged for a sidecar.
func baseSchema(f *pgsql.File, own *Ownership, cfg Config, fs []finding.Finding) []finding.Finding {
	sev, on := cfg.severity(ruleBaseSchema)
	if !on {
		return fs
	}
	first, objs := definesPrerequisites(f, own.Existing)
	if first == nil {
		return fs
	}
	var defined []string
	for _, obj := range objs {
		defined = append(defined, obj.Name.String()+obj.ArgList())
	}
	var kept []finding.Finding
	folded := 0
	for _, fd := range fs {
		if anyMigration[fd.Rule] {
			kept = append(kept, fd)
		} else {
			folded++
		}
	}
	names := defined
	if len(names) > 3 {
		names = append(append([]string{}, names[:3]...), "...")
	}
	msg := fmt.Sprintf("defines %d of the prerequisite objects (%s): this looks like a base schema, not a sidecar; lint it with --base-schema (%d sidecar findings folded)",
		len(defined), strings.Join(names, ", "), folded)
	return append(kept, finding.Finding{Phase: finding.PhaseLint, Rule: BaseSchema, Severity: sev, Pos: first.Pos, Message: msg,
		Detail: "prerequisite objects defined: " + strings.Join(defined, ", ")})
}

// DefinesPrerequisites returns the prerequisite objects f defines (those existing reports, the
// lint policy's lint.existing), when f is a base schema: it defines a prerequisite table, or at
// least two prerequisite objects. None for a sidecar. `ledgercheck init` leaves such a file out
// of a repository's sidecars, as the base-schema finding says.
func DefinesPrerequisites(f *pgsql.File, cfg Config) []pgsql.Object {
	_, objs := definesPrerequisites(f, cfg.IsExisting())
	return objs
}

// definesPrerequisites returns the first statement of f that defines a prerequisite object and
// the prerequisite objects it defines, each once, when f is a base schema; nil, nil otherwise.
func definesPrerequisites(f *pgsql.File, existing func(pgsql.Object) bool) (*pgsql.Op, []pgsql.Object) {
	var first *pgsql.Op
	var defined []pgsql.Object
	seen := map[string]bool{}
	table := false
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 || !existing(op.Objects[0]) {
			continue
		}
		obj := op.Objects[0]
		if seen[obj.Label()] {
			continue
		}
		seen[obj.Label()] = true
		if first == nil {
			first = op
		}
		table = table || obj.Kind == pgsql.KindTable
		defined = append(defined, obj)
	}
	if first == nil || !table && len(defined) < 2 {
		return nil, nil
	}
	return first, defined
}
