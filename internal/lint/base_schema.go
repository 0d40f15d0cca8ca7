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
	var first *pgsql.Op
	var defined []string
	seen := map[string]bool{}
	table := false
	for i := range f.Ops {
		op := &f.Ops[i]
		if op.Verb != pgsql.VerbCreate || len(op.Objects) == 0 || !own.Existing(op.Objects[0]) {
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
		defined = append(defined, obj.Name.String()+obj.ArgList())
	}
	if first == nil || !table && len(defined) < 2 {
		return fs
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
