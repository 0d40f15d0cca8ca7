package lint

import (
	"ledgercheck/internal/finding"
	"ledgercheck/internal/pgsql"
)

// NotIdempotent is the id of the rule below.
const NotIdempotent = "not-idempotent"

var _ = register(&Rule{
	ID: NotIdempotent, Severity: finding.SevError,
	Summary: "a statement that fails or duplicates when the file runs a second time",
	Explain: `A sidecar is "safe to run more than once". Each object is checked on its own:

  - CREATE TABLE, INDEX, SEQUENCE, SCHEMA, EXTENSION, MATERIALIZED VIEW need IF NOT EXISTS (an
    index also needs a name: an unnamed one is created again on every run);
  - CREATE FUNCTION, PROCEDURE and VIEW need OR REPLACE, or a preceding DROP ... IF EXISTS;
  - CREATE POLICY needs a preceding DROP POLICY IF EXISTS of the same name on the same table, and
    CREATE TRIGGER the same (or CREATE OR REPLACE TRIGGER);
  - CREATE TYPE or DOMAIN needs a preceding DROP ... IF EXISTS (or a DO block that checks
    pg_type first);
  - ALTER TABLE ... ADD COLUMN needs IF NOT EXISTS; ADD CONSTRAINT a preceding DROP CONSTRAINT IF
    EXISTS; DROP anything needs IF EXISTS; RENAME cannot run twice.

Statements idempotent by nature are never reported: ENABLE ROW LEVEL SECURITY, GRANT, REVOKE,
COMMENT, NOTIFY, SET. Statements inside DO blocks and function bodies are not checked, since they
usually guard themselves. Squawk's prefer-robust-stmts covers part of this (and wrongly flags ENABLE
ROW LEVEL SECURITY, squawk#308).

    CREATE POLICY edges_service_role_all ON public.agent_decision_edges
      FOR ALL TO service_role USING (true) WITH CHECK (true);

becomes

    DROP POLICY IF EXISTS edges_service_role_all ON public.agent_decision_edges;
    CREATE POLICY edges_service_role_all ON public.agent_decision_edges
      FOR ALL TO service_role USING (true) WITH CHECK (true);`,
	Check: checkIdempotency,
})

func checkIdempotency(p *Pass) {
	dropped := map[ownKey]bool{}     // dropped earlier in the file
	droppedCons := map[string]bool{} // "table\x00constraint" dropped IF EXISTS earlier
	key := func(o pgsql.Object) ownKey {
		return keyOf(o.Kind, o.Name, o.Table)
	}
	for _, op := range p.TopLevel() {
		obj := op.Object()
		switch op.Verb {
		case pgsql.VerbDrop:
			for _, o := range op.Objects {
				dropped[key(o)] = true
			}
			if !op.IfExists {
				p.Report(op.At(), obj.String(), "%s without IF EXISTS fails on the second run", op.Tag)
			}
		case pgsql.VerbRename:
			p.Report(op.At(), obj.String(), "%s fails on the second run (the old name is gone); rename in a DO block that checks the catalog first", op.Tag)
		case pgsql.VerbCreate:
			guarded := dropped[key(obj)]
			switch obj.Kind {
			case pgsql.KindIndex:
				if obj.Name.Name == "" {
					p.Report(op.Pos, "index on "+obj.Table.String(), "CREATE INDEX without a name creates another index on every run; name it and add IF NOT EXISTS")
				} else if !op.IfNotExists && !guarded {
					p.Report(op.Pos, obj.String(), "CREATE INDEX %s without IF NOT EXISTS fails on the second run", obj.Name.Name)
				}
			case pgsql.KindTable, pgsql.KindSequence, pgsql.KindSchema, pgsql.KindExtension, pgsql.KindMatView:
				if !op.IfNotExists && !guarded {
					p.Report(op.At(), obj.String(), "%s %s without IF NOT EXISTS fails on the second run", op.Tag, obj.Name)
				}
			case pgsql.KindFunction, pgsql.KindProcedure, pgsql.KindView, pgsql.KindTrigger, pgsql.KindRule, pgsql.KindLanguage:
				if !op.OrReplace && !guarded {
					p.Report(op.At(), obj.String(), "%s %s without OR REPLACE or a preceding DROP ... IF EXISTS fails on the second run", op.Tag, obj.Name)
				}
			case pgsql.KindPolicy:
				if !guarded {
					p.Report(op.At(), obj.String(), "CREATE POLICY %s on %s is not preceded by DROP POLICY IF EXISTS %s ON %s; it fails on the second run", obj.Name, obj.Table, obj.Name, obj.Table)
				}
			case pgsql.KindType, pgsql.KindRole:
				if !guarded && !op.IfNotExists && !op.OrReplace {
					p.Report(op.At(), obj.String(), "%s %s fails on the second run; drop it IF EXISTS first or create it in a DO block that checks the catalog", op.Tag, obj.Name)
				}
			}
		case pgsql.VerbAlter:
			for _, c := range op.AlterCmds() {
				ck := obj.Name.String() + "\x00" + c.Name
				switch c.Action {
				case "AddColumn":
					if !c.IfNotExists {
						p.Report(c.Pos, obj.String(), "ADD COLUMN %s without IF NOT EXISTS fails on the second run", pgsql.QuoteIdent(c.Name))
					}
				case "AddConstraint":
					if !droppedCons[ck] {
						p.Report(c.Pos, obj.String(), "ADD CONSTRAINT %s is not preceded by DROP CONSTRAINT IF EXISTS %s; it fails on the second run", pgsql.QuoteIdent(c.Name), pgsql.QuoteIdent(c.Name))
					}
				case "DropColumn", "DropConstraint":
					if c.Action == "DropConstraint" {
						droppedCons[ck] = true
					}
					if !c.IfExists {
						p.Report(c.Pos, obj.String(), "%s %s without IF EXISTS fails on the second run", map[string]string{"DropColumn": "DROP COLUMN", "DropConstraint": "DROP CONSTRAINT"}[c.Action], pgsql.QuoteIdent(c.Name))
					}
				}
			}
		}
	}
}
