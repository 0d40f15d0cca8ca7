package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// AttachesToExistingTable is the id of the rule below.
const AttachesToExistingTable = "attaches-to-existing-table"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: AttachesToExistingTable, Severity: finding.SevError,
		Summary: "CREATE TRIGGER, POLICY, RULE or INDEX on a table the file did not create, unless configured",
		Explain: `A trigger, policy, rule or index on a table the file did not create changes how that table
behaves for everyone who writes to it, so it needs a reviewed exception. The decision ledger's
enrollment trigger is one: it is allowed in ledgercheck.yaml, not by a special case in the code:

    lint:
      allow:
        - object: trigger trg_agent_decision_ledger_enroll on public.agent_memories
          actions: [create, drop]
          reason: the ledger enrolls decision rows through an AFTER INSERT trigger

Without an entry,

    CREATE TRIGGER trg_other AFTER INSERT ON public.agent_memories
      FOR EACH ROW EXECUTE FUNCTION public.other();

is reported. Either add an entry with a reason, or attach the behaviour to the sidecar's own
table. (No squawk or splinter equivalent.)`,
	}),
	Check: func(p *Pass) {
		for _, t := range existingTouches(p.File, p.Config, p.Own) {
			if !t.Attach || t.Allowed {
				continue
			}
			p.Report(t.Op.At(), t.Object.String(), "%s attaches %s to %s, which this file did not create%s; allow it in ledgercheck.yaml (lint.allow) with a reason if it is intended",
				t.Op.Tag, t.Object.Kind, t.Object.Table, where(t.Op))
		}
	},
})
