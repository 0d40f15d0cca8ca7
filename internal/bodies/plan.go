package bodies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// What runs on the install role's session to plan the file's views and SQL functions: SET, the
// SQL validator, PREPARE and EXPLAIN of statements ledgercheck writes around the names of the
// file's objects, which the migration's own role resolves.

const (
	// planSetupSQL makes every SQL body analysed again, and every prepared statement planned
	// generically (its parameters left as parameters, so that a call is not folded away).
	planSetupSQL = `SET check_function_bodies = on; SET plan_cache_mode = force_generic_plan`
	// validateSQL runs PostgreSQL's validator of SQL-language functions, which parses and
	// analyses the body against the catalog as it is now, as CREATE FUNCTION does.
	validateSQL = `SELECT pg_catalog.fmgr_sql_validator(pg_catalog.to_regprocedure($1))`
	// planName is the prepared statement a SQL function's call is planned through.
	planName = "ledgercheck_plan"
)

// plan analyses each SQL function of t again with PostgreSQL's validator, and plans each view
// (EXPLAIN SELECT * FROM it) and each SQL function (EXPLAIN of a call with its arguments as
// parameters, planned generically: the planner inlines a SQL body where it can, and evaluates
// what it can fold), as the install role. What fails is a query-cannot-plan finding at the
// statement the body or view is in. It runs on conn, a session of the install role, and returns
// the findings (with an error, those found before it).
func plan(ctx context.Context, conn *pgx.Conn, in Input, t targets) ([]finding.Finding, error) {
	if _, err := conn.Exec(ctx, planSetupSQL); err != nil {
		return nil, fmt.Errorf("preparing to plan the file's views and SQL functions: %w", err)
	}
	var out []finding.Finding
	for _, x := range t.sql {
		pe, err := planned(conn.Exec(ctx, validateSQL, x.fn.Identity()))
		if err == nil && pe == nil && callable(x) {
			pe, err = explainCall(ctx, conn, x)
		}
		if err != nil {
			return out, err
		}
		if pe != nil {
			out = append(out, cannotPlan(in, x.label(), functionPos(in, x, pe), pe))
		}
	}
	for _, v := range t.views {
		id := qualify(v.Schema, v.Name)
		pe, err := planned(conn.Exec(ctx, "EXPLAIN SELECT * FROM "+id))
		if err != nil {
			return out, err
		}
		if pe != nil {
			out = append(out, cannotPlan(in, "view "+id, builder(in, "view", id), pe))
		}
	}
	return out, nil
}

// planned sorts the result of a statement: the server's refusal (what cannot plan), or another
// error (a lost connection, the session ended), or neither.
func planned(_ pgconn.CommandTag, err error) (*pgconn.PgError, error) {
	if err == nil {
		return nil, nil
	}
	if refused(err) {
		var pe *pgconn.PgError
		errors.As(err, &pe)
		return pe, nil
	}
	return nil, err
}

// callable reports whether a call of x can be written with its argument types as parameter
// types: a function (not a procedure) whose arguments are not polymorphic nor variadic.
func callable(x target) bool {
	if x.fn.Kind != "function" || strings.Contains(x.fn.Arguments, "VARIADIC") {
		return false
	}
	for _, a := range strings.Split(x.fn.ArgTypes, ", ") {
		if strings.HasPrefix(a, "any") {
			return false
		}
	}
	return x.fn.Result != "trigger" && x.fn.Result != "event_trigger"
}

// explainCall plans a call of x, its arguments parameters of their types: PREPARE (which only
// resolves the call), then EXPLAIN EXECUTE (which plans it). A PREPARE the server refuses (an
// overload it cannot tell apart) leaves the call unplanned, with no finding.
func explainCall(ctx context.Context, conn *pgx.Conn, x target) (*pgconn.PgError, error) {
	var types, params []string
	if x.fn.ArgTypes != "" {
		types = strings.Split(x.fn.ArgTypes, ", ")
	}
	for i := range types {
		params = append(params, fmt.Sprintf("$%d", i+1))
	}
	name, _, _ := strings.Cut(x.fn.Identity(), "(")
	call := name + "(" + strings.Join(params, ", ") + ")"
	query := "SELECT " + call
	if strings.HasPrefix(x.fn.Result, "SETOF ") || strings.HasPrefix(x.fn.Result, "TABLE(") {
		query = "SELECT * FROM " + call
	}
	prep := "PREPARE " + planName + " AS " + query
	if len(types) > 0 {
		prep = "PREPARE " + planName + "(" + x.fn.ArgTypes + ") AS " + query
	}
	if pe, err := planned(conn.Exec(ctx, prep)); err != nil || pe != nil {
		return nil, err
	}
	exec := "EXPLAIN EXECUTE " + planName
	if len(types) > 0 {
		exec += "(" + strings.TrimSuffix(strings.Repeat("NULL, ", len(types)), ", ") + ")"
	}
	pe, err := planned(conn.Exec(ctx, exec))
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "DEALLOCATE "+planName); err != nil {
		return nil, err
	}
	return pe, nil
}

// functionPos is where a SQL function's failure points: inside its body when the server says
// where (the body is the error's internal query), else its CREATE statement.
func functionPos(in Input, x target, pe *pgconn.PgError) finding.Position {
	if x.create == nil {
		return builder(in, "function", x.fn.Identity())
	}
	fn := x.create.Func()
	if pe.InternalPosition > 0 && pe.InternalQuery == fn.Body {
		return in.File.Pos(fn.BodyOffset(finding.ByteOffset(fn.Body, int(pe.InternalPosition))))
	}
	return x.create.Object().Pos
}

// cannotPlan is the finding of what could not be planned.
func cannotPlan(in Input, what string, pos finding.Position, pe *pgconn.PgError) finding.Finding {
	if pos.Line == 0 {
		pos = finding.Position{File: in.File.Name, Line: 1, Col: 1}
	}
	return finding.Finding{Phase: finding.PhaseBodies, Rule: RuleQueryCannotPlan, Severity: severity(RuleQueryCannotPlan), Pos: pos,
		Message: fmt.Sprintf("%s cannot be planned: %s (SQLSTATE %s)", what, pe.Message, pe.Code), Object: what,
		Detail: labelled("DETAIL: ", pe.Detail, "HINT: ", pe.Hint, "CONTEXT: ", pe.Where)}
}
