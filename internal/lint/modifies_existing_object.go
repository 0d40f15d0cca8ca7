package lint

import (
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ModifiesExistingObject is the id of the rule below.
const ModifiesExistingObject = "modifies-existing-object"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ModifiesExistingObject, Severity: finding.SevError,
		Summary: "ALTER, DROP, RENAME, TRUNCATE, COMMENT or a privilege change on an object the file did not create",
		Explain: `A sidecar migration is "strictly sidecar-only": it creates its own objects and leaves
everything it did not create untouched (public.thoughts, the agent-memory tables, their functions,
schemas, roles). That includes statements inside function bodies, DO blocks and literal EXECUTE
strings, which run with the same rights. Re-creating a pre-existing object (CREATE OR REPLACE of
a function listed under lint.existing in ledgercheck.yaml) counts as changing it. Functions are
identified by name and argument types: a new overload is the file's own (and needs its own
grants), and lint.existing names the prerequisites' signatures ("function
public.upsert_thought(text, jsonb)"; a name alone stands for every overload). The sequences of
the file's serial and identity columns, and the columns it adds, are the file's own too.

Names are resolved as PostgreSQL does: unquoted identifiers fold to lower case, quoted ones keep
their case, unqualified names go through the search_path the file sets (default public).

    ALTER TABLE public.thoughts ADD COLUMN step_index int;

becomes a column of the sidecar's own table:

    CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (
      memory_id uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
      step_index integer NOT NULL
    );

Changes to an object the file re-creates (a GRANT on the redefined function) are folded into the
finding of the re-creation, as its detail.

A reviewed exception goes into ledgercheck.yaml (lint.allow, with a reason), or, for one statement,
a "-- ledgercheck:ignore modifies-existing-object reason" comment. (Open Brain's PR gate greps for
ALTER TABLE thoughts; squawk and splinter have no equivalent.)`,
	}),
	Check: func(p *Pass) {
		recreated := map[ownKey]int{} // the finding of each object the file re-creates
		for _, t := range existingTouches(p.File, p.Config, p.Own) {
			if t.Attach || t.Allowed {
				continue
			}
			what := string(t.Verb)
			if t.Detail != "" {
				what += " (" + t.Detail + ")"
			}
			pos := t.Op.At()
			// Follow-on changes to an object the file re-creates are folded into that finding.
			if i, ok := recreated[keyOf(t.Object)]; ok {
				(*p.findings)[i].Detail += fmt.Sprintf("\nalso %s at %s", what, pos)
				continue
			}
			if t.Verb == "create" {
				recreated[keyOf(t.Object)] = len(*p.findings)
				p.Report(pos, t.Object.Label(), "%s re-creates %s, which exists before this file runs%s; a sidecar must not redefine it", t.Op.Tag, t.Object.ShortLabel(), where(t.Op))
				continue
			}
			p.Report(pos, t.Object.Label(), "%s changes %s, which this file did not create%s: %s", t.Op.Tag, t.Object.ShortLabel(), where(t.Op), what)
		}
	},
})
