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
		Summary: "the file defines the prerequisites themselves: a base schema, not a sidecar",
		Explain: `lint judges a file as a sidecar: the objects listed under lint.existing in ledgercheck.yaml
(public.thoughts, the agent-memory tables, their functions) exist before it runs, and changing
them is an error. A file that creates a prerequisite table, or two or more prerequisite objects,
is not a sidecar but a base schema (the staging base draft, schemas/agent-memory); judged as a
sidecar it would get one error per statement. lint reports it once instead, at the first
statement that creates a prerequisite, and folds every sidecar finding into it. Findings that
apply to any migration (a parse error, psql-only syntax, server file access, CONCURRENTLY in a
transaction, an unterminated transaction, a malformed suppression) are still reported.

To lint a base schema as a migration of its own, give lint no prerequisites:

    ledgercheck lint --base-schema docs/drafts/agent-memory-staging-base.sql

(or a configuration whose lint.existing does not list the objects the file defines).`,
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
