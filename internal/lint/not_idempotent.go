package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// NotIdempotent is the id of the rule below.
const NotIdempotent = "not-idempotent"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: NotIdempotent, Severity: finding.SevError,
	}),
	Check: checkIdempotency,
})

func checkIdempotency(p *Pass) {
	checkIdempotencyWith(p, func(_ *pgsql.Op, pos finding.Position, obj, format string, args ...any) {
		p.Report(pos, obj, format, args...)
	})
}

// checkIdempotencyWith calls report for every statement that is not rerun-safe.
func checkIdempotencyWith(p *Pass, report func(op *pgsql.Op, pos finding.Position, obj, format string, args ...any)) {
	dropped := map[ownKey]bool{}      // dropped earlier in the file
	droppedAll := droppedOverloads(p) // functions whose every overload was dropped earlier
	droppedCons := map[string]bool{}  // "table\x00constraint" dropped IF EXISTS earlier
	key := func(o pgsql.Object) ownKey {
		return keyOf(o)
	}
	for _, op := range p.TopLevel() {
		obj := op.Object()
		switch op.Verb {
		case pgsql.VerbDrop:
			for _, o := range op.Objects {
				dropped[key(o)] = true
				if isFunction(o) && !o.HasArgs {
					droppedAll[o.Name] = op.Stmt
				}
			}
			if !op.IfExists {
				report(op, op.At(), obj.String(), "%s without IF EXISTS fails on the second run", op.Tag)
			}
		case pgsql.VerbRename:
			report(op, op.At(), obj.String(), "%s fails on the second run (the old name is gone); rename in a DO block that checks the catalog first", op.Tag)
		case pgsql.VerbCreate:
			stmt, all := droppedAll[obj.Name]
			guarded := dropped[key(obj)] || isFunction(obj) && all && stmt < op.Stmt
			switch obj.Kind {
			case pgsql.KindIndex:
				if obj.Name.Name == "" {
					report(op, op.Pos, "index on "+obj.Table.String(), "CREATE INDEX without a name creates another index on every run; name it and add IF NOT EXISTS")
				} else if !op.IfNotExists && !guarded {
					report(op, op.Pos, obj.String(), "CREATE INDEX %s without IF NOT EXISTS fails on the second run", obj.Name.Name)
				}
			case pgsql.KindTable, pgsql.KindSequence, pgsql.KindSchema, pgsql.KindExtension, pgsql.KindMatView, pgsql.KindForeignTable:
				if !op.IfNotExists && !guarded {
					report(op, op.At(), obj.String(), "%s %s without IF NOT EXISTS fails on the second run", op.Tag, obj.Name)
				}
			case pgsql.KindFunction, pgsql.KindProcedure, pgsql.KindView, pgsql.KindTrigger, pgsql.KindRule, pgsql.KindLanguage:
				if !op.OrReplace && !guarded {
					report(op, op.At(), obj.String(), "%s %s without OR REPLACE or a preceding DROP ... IF EXISTS fails on the second run", op.Tag, obj.Name)
				}
			case pgsql.KindPolicy:
				if !guarded {
					report(op, op.At(), obj.String(), "CREATE POLICY %s on %s is not preceded by DROP POLICY IF EXISTS %s ON %s; it fails on the second run", obj.Name, obj.Table, obj.Name, obj.Table)
				}
			case pgsql.KindType, pgsql.KindRole:
				if !guarded && !op.IfNotExists && !op.OrReplace {
					report(op, op.At(), obj.String(), "%s %s fails on the second run; drop it IF EXISTS first or create it in a DO block that checks the catalog", op.Tag, obj.Name)
				}
			}
		case pgsql.VerbSelect:
			for _, c := range op.Calls {
				if c.Name.Name == "schedule" && c.Name.Schema == "cron" && c.Args == 2 {
					report(op, c.Pos, "", "cron.schedule(schedule, command) without a job name adds another job on every run; call cron.schedule(job_name, schedule, command), which updates the job of that name")
				}
			}
		case pgsql.VerbAlter:
			for _, c := range op.AlterCmds() {
				ck := obj.Name.String() + "\x00" + c.Name
				switch c.Action {
				case "AddColumn":
					if !c.IfNotExists {
						report(op, c.Pos, obj.String(), "ADD COLUMN %s without IF NOT EXISTS fails on the second run", pgsql.QuoteIdent(c.Name))
					}
				case "AddConstraint":
					if !droppedCons[ck] {
						report(op, c.Pos, obj.String(), "ADD CONSTRAINT %s is not preceded by DROP CONSTRAINT IF EXISTS %s; it fails on the second run", pgsql.QuoteIdent(c.Name), pgsql.QuoteIdent(c.Name))
					}
				case "DropColumn", "DropConstraint":
					if c.Action == "DropConstraint" {
						droppedCons[ck] = true
					}
					if !c.IfExists {
						report(op, c.Pos, obj.String(), "%s %s without IF EXISTS fails on the second run", map[string]string{"DropColumn": "DROP COLUMN", "DropConstraint": "DROP CONSTRAINT"}[c.Action], pgsql.QuoteIdent(c.Name))
					}
				}
			}
		}
	}
}

// droppedOverloads returns the functions whose every overload a statement drops, by the
// statement's index: DROP FUNCTION name without arguments (dropped as the file goes), and the
// DO blocks that drop every overload of a name ([pgsql.DoBlock.DropsOverloads]).
func droppedOverloads(p *Pass) map[pgsql.Name]int {
	out := map[pgsql.Name]int{}
	for _, op := range p.TopLevel() {
		if d := op.Do(); d != nil {
			for _, n := range d.DropsOverloads {
				if _, ok := out[n]; !ok {
					out[n] = op.Stmt
				}
			}
		}
	}
	return out
}
