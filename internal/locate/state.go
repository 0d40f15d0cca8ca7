package locate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// SequenceSetter returns the statement of the file that most likely sets the sequence seq
// (schema-qualified, as introspect names it) back when the file runs again: an ALTER SEQUENCE of
// it, else a call of setval whose first argument names it, else any call of setval; with a
// description ("call of setval at ...", "ALTER SEQUENCE of public.s").
func (ix *Index) SequenceSetter(seq string) (finding.Position, string, bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, "", false
	}
	for i := range ix.file.Ops {
		op := &ix.file.Ops[i]
		if op.Verb != pgsql.VerbAlter || op.Context == pgsql.InFunction {
			continue
		}
		if o := op.Object(); o.Kind == pgsql.KindSequence && o.Name.String() == seq {
			return op.Pos, fmt.Sprintf("%s of %s", op.Tag, seq), true
		}
	}
	if pos, what, ok := ix.caller(func(c pgsql.Call) bool { return isCall(c, "setval") && namesRelation(c.Literal, seq) }); ok {
		return pos, what, true
	}
	return ix.caller(func(c pgsql.Call) bool { return isCall(c, "setval") })
}

// Caller returns the first call in the file of the first of funcs it calls ("net.http_post"; a
// name without a schema matches a call in any schema), at the top level or in a DO block first,
// else in a function body; with a description ("call of net.http_post").
func (ix *Index) Caller(funcs ...string) (finding.Position, string, bool) {
	for _, f := range funcs {
		if pos, what, ok := ix.caller(func(c pgsql.Call) bool { return isCall(c, f) }); ok {
			return pos, what, true
		}
	}
	return finding.Position{}, "", false
}

// caller returns the first call that match accepts (see [Index.Caller]).
func (ix *Index) caller(match func(pgsql.Call) bool) (finding.Position, string, bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, "", false
	}
	for _, inBody := range []bool{false, true} {
		for i := range ix.file.Ops {
			op := &ix.file.Ops[i]
			if (op.Context == pgsql.InFunction) != inBody {
				continue
			}
			for _, c := range op.Calls {
				if match(c) {
					what := "call of " + c.Name.String()
					if inBody {
						what += " in the body of " + op.Function.String()
					}
					return c.Pos, what, true
				}
			}
		}
	}
	return finding.Position{}, "", false
}

// isCall reports whether c calls f: "schema.name", or "name" in any schema (a call without a
// schema matches any f of its name: the search path decides).
func isCall(c pgsql.Call, f string) bool {
	schema, name, qualified := strings.Cut(f, ".")
	if !qualified {
		return c.Name.Name == schema
	}
	return c.Name.Name == name && (c.Name.Schema == "" || c.Name.Schema == schema)
}

// namesRelation reports whether lit, a string literal that names a relation (setval's
// 'public.s', 's', '"S"'), names rel (schema-qualified, quoted as introspect quotes it).
func namesRelation(lit, rel string) bool {
	if lit == "" {
		return false
	}
	norm := func(s string) []string {
		parts := strings.Split(s, ".")
		for i, p := range parts {
			if strings.HasPrefix(p, `"`) {
				parts[i] = strings.ReplaceAll(strings.Trim(p, `"`), `""`, `"`)
			} else {
				parts[i] = strings.ToLower(p)
			}
		}
		return parts
	}
	l, r := norm(lit), norm(rel)
	if len(l) == 1 {
		return l[0] == r[len(r)-1]
	}
	return strings.Join(l, ".") == strings.Join(r, ".")
}

// RowWriter returns the statement of the file that most likely wrote the rows of table: its
// [Index.Changer], else, for a table of the environment's extensions that no statement names, the
// first call of a function that writes it (net.http_post for pg_net's queue, cron.schedule for
// cron.job, vault.create_secret for vault.secrets).
func (ix *Index) RowWriter(table string) (finding.Position, string, bool) {
	if pos, what, ok := ix.Changer(table); ok {
		return pos, what, true
	}
	if fs := environmentWriters[table]; len(fs) > 0 {
		return ix.Caller(fs...)
	}
	return finding.Position{}, "", false
}

// environmentWriters are the functions of the Supabase environment's extensions
// (internal/scratch/env/ext) that write the rows of one of their tables.
var environmentWriters = map[string][]string{
	"net.http_request_queue": {"net.http_get", "net.http_post", "net.http_delete"},
	"cron.job":               {"cron.schedule", "cron.schedule_in_database", "cron.alter_job", "cron.unschedule"},
	"vault.secrets":          {"vault.create_secret", "vault.update_secret"},
}

// CallWith returns the first call of f (as [Index.Caller] matches it) whose [pgsql.Call.Literal]
// lit accepts, top level first.
func (ix *Index) CallWith(f string, lit func(string) bool) (finding.Position, string, bool) {
	return ix.caller(func(c pgsql.Call) bool { return isCall(c, f) && lit(c.Literal) })
}

// ColumnWriter returns the statement of the file (top level or a DO block) that most likely set
// column of table: an UPDATE that assigns it, else an INSERT that lists it (or assigns it ON
// CONFLICT), the last of them in the file; else the table's [Index.RowWriter].
func (ix *Index) ColumnWriter(table, column string) (finding.Position, string, bool) {
	if ix == nil || ix.file == nil {
		return finding.Position{}, "", false
	}
	for _, verb := range []pgsql.Verb{pgsql.VerbUpdate, pgsql.VerbInsert} {
		for i := len(ix.file.Ops) - 1; i >= 0; i-- {
			op := &ix.file.Ops[i]
			if op.Verb != verb || op.Context == pgsql.InFunction || !slices.Contains(op.Sets(), column) {
				continue
			}
			if o := op.Object(); Key(string(o.Kind), o.Name.String()) == Key("table", table) {
				return op.Pos, fmt.Sprintf("%s of %s setting %s", op.Tag, table, column), true
			}
		}
	}
	return ix.RowWriter(table)
}
