package bodies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// What runs on the install role's session: the migration's own role, so that whatever checking
// evaluates (planning folds immutable functions) runs with no more privilege than the migration
// has. The queries name pg_catalog's functions and operators all the same, and plpgsql_check's
// function in the schema createExtension made.

// resolveSQL finds each function by its identity, with the tables of the triggers that use it.
const resolveSQL = `SELECT i.ident, p.oid,
  p.prorettype OPERATOR(pg_catalog.=) 'pg_catalog.trigger'::pg_catalog.regtype,
  ARRAY(SELECT t.tgrelid FROM pg_catalog.pg_trigger t
        WHERE t.tgfoid OPERATOR(pg_catalog.=) p.oid AND NOT t.tgisinternal ORDER BY t.tgrelid),
  ARRAY(SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_trigger t
        JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tgrelid
        JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        WHERE t.tgfoid OPERATOR(pg_catalog.=) p.oid AND NOT t.tgisinternal ORDER BY t.tgrelid)
FROM pg_catalog.unnest($1::pg_catalog.text[]) AS i(ident)
JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(i.ident)`

// checkSQL is plpgsql_check on each (function, relation) pair, with every kind of warning; %s is
// the extension's schema.
const checkSQL = `SELECT c.oid, c.relid, d.lineno, d.statement, d.sqlstate, d.message, d.detail, d.hint, d.level,
  d."position", d.query
FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.oid[]), pg_catalog.unnest($2::pg_catalog.oid[])) AS c(oid, relid),
LATERAL %s.plpgsql_check_function_tb(c.oid, c.relid, fatal_errors => false, other_warnings => true,
  performance_warnings => true, extra_warnings => true, security_warnings => true) d`

// diag is one row of plpgsql_check_function_tb.
type diag struct {
	lineno, position                                              int // 0: none
	statement, sqlstate, message, detail, hint, level, query, rel string
}

// checked is a function to run plpgsql_check on, against the table of one of its triggers (relid
// 0: not a trigger function).
type checked struct {
	t     target
	oid   uint32
	relid uint32
	rel   string
}

// checkPLpgSQL runs plpgsql_check on the PL/pgSQL routines fns, on conn (a session of the
// install role, role) once admin created the extension, and returns their findings, the
// phase's notes and how many it checked.
func checkPLpgSQL(ctx context.Context, conn, admin *pgx.Conn, role string, in Input, fns []target) (fs []finding.Finding, notes []string, n int, err error) {
	ext, why, err := createExtension(ctx, admin, role)
	if err != nil || ext == nil {
		if why != "" {
			notes = []string{why}
		}
		return nil, notes, 0, err
	}
	defer func() {
		if derr := ext.drop(ctx, admin); derr != nil && err == nil {
			err = derr
		}
	}()
	list, notes, err := resolve(ctx, conn, fns)
	if err != nil {
		return nil, nil, 0, err
	}
	diags, more, err := runCheck(ctx, conn, ext, list)
	if err != nil {
		return nil, nil, 0, err
	}
	fs, err = findings(ctx, admin, in, list, diags)
	checkedOids := map[uint32]bool{}
	for i, c := range list {
		if diags[i] != nil || !slices.ContainsFunc(more, func(n string) bool { return strings.HasPrefix(n, c.t.label()+":") }) {
			checkedOids[c.oid] = true
		}
	}
	return fs, append(notes, more...), len(checkedOids), err
}

// resolve finds each function's oid and, for a trigger function, the tables of its triggers;
// a trigger function no trigger uses cannot be checked (plpgsql_check needs the table NEW and
// OLD are rows of), which a note says.
func resolve(ctx context.Context, conn *pgx.Conn, fns []target) ([]checked, []string, error) {
	byIdent := map[string]target{}
	idents := make([]string, len(fns))
	for i, t := range fns {
		idents[i] = t.fn.Identity()
		byIdent[idents[i]] = t
	}
	rows, err := conn.Query(ctx, resolveSQL, idents)
	if err != nil {
		return nil, nil, fmt.Errorf("finding the functions to check: %w", err)
	}
	defer rows.Close()
	var out []checked
	var notes []string
	found := map[string]bool{}
	for rows.Next() {
		var ident string
		var oid uint32
		var trigger bool
		var relids []uint32
		var rels []string
		if err := rows.Scan(&ident, &oid, &trigger, &relids, &rels); err != nil {
			return nil, nil, err
		}
		t := byIdent[ident]
		found[ident] = true
		switch {
		case !trigger:
			out = append(out, checked{t: t, oid: oid})
		case len(relids) == 0:
			notes = append(notes, fmt.Sprintf("%s: not checked: no trigger uses it, and plpgsql_check checks a trigger function against the table of its trigger", t.label()))
		default:
			for i, r := range relids {
				out = append(out, checked{t: t, oid: oid, relid: r, rel: rels[i]})
			}
		}
	}
	for _, t := range fns {
		if !found[t.fn.Identity()] {
			notes = append(notes, fmt.Sprintf("%s: not checked: the server does not find it by that identity", t.label()))
		}
	}
	return out, notes, rows.Err()
}

// runCheck runs plpgsql_check on every function of list in one query; when the query fails (a
// function plpgsql_check refuses), one function at a time, each refusal a note.
func runCheck(ctx context.Context, conn *pgx.Conn, ext *extension, list []checked) ([][]diag, []string, error) {
	out := make([][]diag, len(list))
	if err := checkAll(ctx, conn, ext, list, out); err == nil {
		return out, nil, nil
	} else if !refused(err) {
		return nil, nil, err
	}
	var notes []string
	for i := range list {
		one := make([][]diag, 1)
		if err := checkAll(ctx, conn, ext, list[i:i+1], one); err != nil {
			if !refused(err) {
				return nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("%s: not checked: plpgsql_check refused it: %v", list[i].t.label(), err))
			continue
		}
		out[i] = one[0]
	}
	return out, notes, nil
}

// refused reports whether err is the server's refusal of the query: an ERROR, not a lost
// connection nor a FATAL that ended the session.
func refused(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Severity != "FATAL" && pe.Severity != "PANIC"
}

// checkAll runs plpgsql_check on list, each function's rows into out at its index.
func checkAll(ctx context.Context, conn *pgx.Conn, ext *extension, list []checked, out [][]diag) error {
	oids, relids := make([]uint32, len(list)), make([]uint32, len(list))
	for i, c := range list {
		oids[i], relids[i] = c.oid, c.relid
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(checkSQL, ext.schema), oids, relids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var oid, relid uint32
		var lineno, position *int32
		var statement, sqlstate, message, detail, hint, level, query *string
		if err := rows.Scan(&oid, &relid, &lineno, &statement, &sqlstate, &message, &detail, &hint, &level, &position, &query); err != nil {
			return err
		}
		d := diag{statement: str(statement), sqlstate: str(sqlstate), message: str(message), detail: str(detail),
			hint: str(hint), level: str(level), query: str(query)}
		if lineno != nil {
			d.lineno = int(*lineno)
		}
		if position != nil {
			d.position = int(*position)
		}
		for i, c := range list {
			if c.oid == oid && c.relid == relid {
				d.rel = c.rel
				out[i] = append(out[i], d)
				break
			}
		}
	}
	return rows.Err()
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// findings turns each function's diagnostics into findings at their place in the file, asking
// the server who may execute the functions with a security diagnostic.
func findings(ctx context.Context, admin *pgx.Conn, in Input, list []checked, diags [][]diag) ([]finding.Finding, error) {
	var secure []uint32
	for i, ds := range diags {
		for _, d := range ds {
			if d.level == "security" {
				secure = append(secure, list[i].oid)
			}
		}
	}
	api := map[uint32]string{}
	if len(secure) > 0 {
		var err error
		if api, err = executable(ctx, admin, secure); err != nil {
			return nil, err
		}
	}
	var out []finding.Finding
	for i, ds := range diags {
		// A statement plpgsql_check cannot analyse hides what it uses: with an error in the
		// body, "unused" is not a finding of its own.
		failed := slices.ContainsFunc(ds, func(d diag) bool { id, _ := classify(d); return id == RuleBodyCannotRun })
		for _, d := range ds {
			f, ok := diagnostic(in, list[i], d, api[list[i].oid])
			if ok && !(failed && f.Rule == RuleBodyUnusedVariable) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// diagnostic is the finding of one diagnostic of c's check, if its kind is one the phase
// reports ([classify]); api names the API roles that may execute the function ("" none).
func diagnostic(in Input, c checked, d diag, api string) (finding.Finding, bool) {
	id, ok := classify(d)
	if !ok {
		return finding.Finding{}, false
	}
	msg := d.message
	switch id {
	case RuleBodyVolatility:
		msg = fmt.Sprintf("%s is declared %s, and PostgreSQL refuses its statement when it runs: %s; declare it VOLATILE", c.t.label(), strings.ToUpper(c.t.fn.Volatility), d.message)
	case RuleBodySQLInjection:
		if api != "" {
			id = RuleBodySQLInjectionAPI
			msg = fmt.Sprintf("%s, which %s can execute, builds SQL from its input without quote_ident, quote_literal or format's %%I/%%L: %s", c.t.label(), api, d.message)
		} else {
			msg = fmt.Sprintf("%s builds SQL from its input without quote_ident, quote_literal or format's %%I/%%L: %s", c.t.label(), d.message)
		}
	default:
		msg = c.t.label() + ": " + msg
	}
	if c.t.create == nil && d.lineno > 0 {
		msg += fmt.Sprintf(" (line %d of its body, which the file builds at run time)", d.lineno)
	}
	return finding.Finding{Phase: finding.PhaseBodies, Rule: id, Severity: severity(id), Pos: place(in, c.t, d),
		Message: msg, Object: c.t.label(), Detail: detailOf(d, c)}, true
}

// detailOf is the diagnostic's detail and hint, and the table a trigger function was checked
// against.
func detailOf(d diag, c checked) string {
	return labelled("DETAIL: ", d.detail, "HINT: ", d.hint, "checked as the trigger function of ", c.rel)
}

// labelled joins, one a line, each label followed by its value, of the pairs whose value is not
// empty.
func labelled(pairs ...string) string {
	var lines []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			lines = append(lines, pairs[i]+pairs[i+1])
		}
	}
	return strings.Join(lines, "\n")
}

// classify returns the rule of a diagnostic, or false for those the phase does not report
// (plpgsql_check's advice to declare a function IMMUTABLE or STABLE, an OUT variable maybe left
// unset, a type that is cast on assignment).
func classify(d diag) (string, bool) {
	switch m := d.message; {
	case d.level == "security":
		return RuleBodySQLInjection, true
	case d.sqlstate == "0A000" && strings.HasSuffix(m, "is not allowed in a non volatile function"):
		return RuleBodyVolatility, true
	case d.sqlstate == "2F005", d.level == "error":
		return RuleBodyCannotRun, true
	case strings.HasPrefix(m, "implicit cast of attribute"):
		return RuleBodyImplicitCast, true
	case strings.HasPrefix(m, "unreachable code"):
		return RuleBodyDeadCode, true
	case strings.HasPrefix(m, "unused variable"), strings.HasPrefix(m, "never read variable"),
		strings.HasPrefix(m, "unused parameter"), strings.HasPrefix(m, "parameter ") && strings.HasSuffix(m, " is never read"):
		return RuleBodyUnusedVariable, true
	}
	return "", false
}
