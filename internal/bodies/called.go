package bodies

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// The SQL a PL/pgSQL body builds at run time (EXECUTE of an expression) is out of plpgsql_check's
// reach: it checks the expression, not the statement it makes. What that statement does is
// observed instead: each such function the file wrote is called, on the phase's session of the
// install role (the migration's own role), twice, with two different sets of generated
// arguments, each call in a savepoint rolled back, with a short statement and lock timeout. A
// call that fails in a statement of the function itself, both times with the same error of
// class 42 (a relation, column or function that does not exist, a syntax error: the statement
// is wrong whatever it is given) in the same SQL, about a name the body writes, is a
// body-cannot-run finding at that statement's line. An error that changes with the arguments,
// or in SQL that does (the caller's values spliced into it), one about a name the body does not
// write (a name read from a table) or about no name (punctuation), a refused privilege (42501:
// the callers in production may hold it) and every other error are not findings: they may
// depend on what the function is given, not on what it is.

// callTimeout bounds each call, callLockTimeout each lock a call waits for: a function that
// loops or sleeps, or waits for a lock another phase holds, fails its call, which is no finding.
const (
	callTimeout     = "1s"
	callLockTimeout = "100ms"
)

// maxCalled and callBudget bound the calls of a phase: at most maxCalled functions are called,
// none after callBudget has passed since the first call (a file of many functions that sleep
// cannot hold the phase for long); the others get a note.
const (
	maxCalled  = 40
	callBudget = 20 * time.Second
)

// calleeSQL reads what a call of each function needs: for a trigger function, the first table
// with a row-level INSERT trigger that runs it (its call is an insert there); the types of the
// arguments without a default; and whether it can be called with generated values (not a
// trigger function, no VARIADIC, no pseudo-type argument such as anyelement).
const calleeSQL = `SELECT i.ident,
  (SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_trigger g
     JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) g.tgrelid
     JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
    WHERE g.tgfoid OPERATOR(pg_catalog.=) p.oid AND NOT g.tgisinternal
      AND (g.tgtype::pg_catalog.int4 OPERATOR(pg_catalog.&) 5) OPERATOR(pg_catalog.=) 5
    ORDER BY 1 LIMIT 1),
  ARRAY(SELECT pg_catalog.format_type(a.t, NULL) FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY AS a(t, n)
        WHERE a.n OPERATOR(pg_catalog.<=) (p.pronargs OPERATOR(pg_catalog.-) p.pronargdefaults) ORDER BY a.n),
  p.prorettype OPERATOR(pg_catalog.<>) 'pg_catalog.trigger'::pg_catalog.regtype
    AND p.provariadic OPERATOR(pg_catalog.=) 0
    AND NOT EXISTS (SELECT FROM pg_catalog.unnest(p.proargtypes) AS a(t) JOIN pg_catalog.pg_type y ON y.oid OPERATOR(pg_catalog.=) a.t
                    WHERE y.typtype OPERATOR(pg_catalog.=) 'p')
FROM pg_catalog.unnest($1::pg_catalog.text[]) AS i(ident)
JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(i.ident)
WHERE p.prokind OPERATOR(pg_catalog.=) 'f'`

// generated are, for the argument types a call can be made with, the two values of the two
// calls: different, so that an error that depends on the arguments differs between them.
var generated = map[string][2]string{
	"text":                        {"ledgercheck-a", "ledgercheck-b"},
	"character varying":           {"ledgercheck-a", "ledgercheck-b"},
	"citext":                      {"ledgercheck-a", "ledgercheck-b"},
	"name":                        {"ledgercheck_a", "ledgercheck_b"},
	"uuid":                        {"00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"},
	"smallint":                    {"1", "2"},
	"integer":                     {"1", "2"},
	"bigint":                      {"1", "2"},
	"numeric":                     {"1", "2"},
	"real":                        {"1", "2"},
	"double precision":            {"1", "2"},
	"boolean":                     {"true", "false"},
	"jsonb":                       {`{}`, `{"a": 1}`},
	"json":                        {`{}`, `{"a": 1}`},
	"date":                        {"2026-01-01", "2026-06-01"},
	"timestamp with time zone":    {"2026-01-01 00:00:00+00", "2026-06-01 00:00:00+00"},
	"timestamp without time zone": {"2026-01-01 00:00:00", "2026-06-01 00:00:00"},
	"interval":                    {"1 day", "2 days"},
	"text[]":                      {"{ledgercheck-a}", "{ledgercheck-b}"},
	"uuid[]":                      {"{00000000-0000-4000-8000-00000000000a}", "{00000000-0000-4000-8000-00000000000b}"},
	"integer[]":                   {"{1}", "{2}"},
	"bigint[]":                    {"{1}", "{2}"},
}

// whereRE is the innermost line of a PL/pgSQL error's context: the function (schema, name) and
// the line of the statement that failed (EXECUTE, RETURN QUERY EXECUTE, FOR ... IN EXECUTE, or a
// statement plpgsql_check did not find wrong).
var whereRE = regexp.MustCompile(`^PL/pgSQL function (?:"?([^"(\s]+)"?\.)?"?([^"(\s]+)"?\(.*\) line (\d+) at `)

// unquotedRE is the name in PostgreSQL's messages that do not quote it: a qualified column
// ("column n.knd does not exist") and a function ("function public.f(integer) does not exist").
var unquotedRE = regexp.MustCompile(`^(?:column ([^\s"]+) does not exist|function ([^\s(]+)\()`)

// dynamicTargets are the functions of fns whose body, as the file wrote it, runs SQL built at run
// time.
func dynamicTargets(f *pgsql.File, fns []target) []target {
	var out []target
	for _, t := range fns {
		if t.create == nil || t.fn.Kind != "function" {
			continue
		}
		for i := range f.Ops {
			op := &f.Ops[i]
			if d := op.Dynamic(); d != nil && !d.Literal && op.Context == pgsql.InFunction && op.Stmt == t.create.Stmt {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// callDynamic calls each function of fns that runs SQL built at run time, as the introduction
// says, on conn (a session of the install role), skipping those plpgsql_check already found
// unable to run (failed, by label). It returns the findings, a note of what it called, one for
// each function it did not call saying why, and the functions those notes account for (called,
// or not with a reason).
func callDynamic(ctx context.Context, conn *pgx.Conn, in Input, fns []target, failed map[string]bool) (fs []finding.Finding, notes []string, accounted map[pgsql.Name]bool, err error) {
	var todo []target
	for _, t := range dynamicTargets(in.File, fns) {
		if !failed[t.label()] {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil, nil, nil, nil
	}
	idents := make([]string, len(todo))
	for i, t := range todo {
		idents[i] = t.fn.Identity()
	}
	type callee struct {
		insertInto *string
		args       []string
		callable   bool
	}
	callees := map[string]callee{}
	rows, err := conn.Query(ctx, calleeSQL, idents)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the functions to call: %w", err)
	}
	for rows.Next() {
		var ident string
		var c callee
		if err := rows.Scan(&ident, &c.insertInto, &c.args, &c.callable); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		callees[ident] = c
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("reading the functions to call: %w", err)
	}
	accounted = map[pgsql.Name]bool{}
	called := 0
	deadline := time.Now().Add(callBudget)
	skipped := 0
	for _, t := range todo {
		name := pgsql.Name{Schema: t.fn.Schema, Name: t.fn.Name}
		accounted[name] = true
		if called == maxCalled || time.Now().After(deadline) {
			skipped++
			continue
		}
		c, ok := callees[t.fn.Identity()]
		if ok && !c.callable && c.insertInto != nil {
			errs, err := fire(ctx, conn, in, *c.insertInto)
			if err != nil {
				return nil, nil, nil, err
			}
			called++
			if f, ok := failedTwice(in, t, errs, "fired by inserting different generated rows into "+*c.insertInto+" as the install role"); ok {
				fs = append(fs, f)
			}
			continue
		}
		if !ok || !c.callable {
			notes = append(notes, fmt.Sprintf("%s: the SQL it builds at run time (EXECUTE) was not observed: plpgsql_check reads the expression that builds it, and the function cannot be called with generated arguments (a trigger function no row-level INSERT trigger runs, VARIADIC, or a polymorphic argument)", t.label()))
			continue
		}
		calls, missing := callsOf(t, c.args)
		if missing != "" {
			notes = append(notes, fmt.Sprintf("%s: the SQL it builds at run time (EXECUTE) was not observed: plpgsql_check reads the expression that builds it, and no two values are generated for an argument of type %s", t.label(), missing))
			continue
		}
		var errs [2]*pgconn.PgError
		for i, call := range calls {
			if errs[i], err = callOnce(ctx, conn, call); err != nil {
				return nil, nil, nil, err
			}
		}
		called++
		if f, ok := failedBoth(in, t, errs, "called twice as the install role with different generated arguments"); ok {
			fs = append(fs, f)
		}
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("the SQL built at run time (EXECUTE) by %s was not observed: the phase calls at most %d, within %v", nouns.Count(skipped, "more function"), maxCalled, callBudget))
	}
	if called > 0 {
		notes = append([]string{fmt.Sprintf("observed the SQL built at run time (EXECUTE) by %s: each called twice as the install role, with two sets of generated arguments (a trigger function: fired by inserting generated rows into its table), and rolled back", nouns.Count(called, "function"))}, notes...)
	}
	return fs, notes, accounted, nil
}

// fire inserts generated rows (internal/fill's, two, with the rows their foreign keys need)
// into table on conn, in a transaction rolled back, each insert in a savepoint with the calls'
// timeouts: the row-level INSERT triggers on it run. It returns the server's errors, in order
// (fill tries a rejected row again with other values).
func fire(ctx context.Context, conn *pgx.Conn, in Input, table string) ([]*pgconn.PgError, error) {
	plan := fill.New(nil, in.Fresh, fill.Options{Seed: fireSeed, Rows: 2, Tables: []string{table}})
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("firing a trigger: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to keep
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '"+callTimeout+"'; SET LOCAL lock_timeout = '"+callLockTimeout+"'"); err != nil {
		return nil, fmt.Errorf("firing a trigger: %w", err)
	}
	sp := &savepoints{tx: tx}
	if _, err := fill.Run(ctx, sp, plan); err != nil {
		return nil, fmt.Errorf("firing a trigger: %w", err)
	}
	return sp.errs, nil
}

// fireSeed seeds the rows that fire a trigger (not the rerun audit's, nor the observation's).
const fireSeed = 47

// savepoints runs each statement of fill in a savepoint of tx, rolled back to when the statement
// fails (so that the next one runs), and keeps the server's errors.
type savepoints struct {
	tx   pgx.Tx
	errs []*pgconn.PgError
}

// Exec runs sql in a savepoint (fill.Execer).
func (s *savepoints) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if _, err := s.tx.Exec(ctx, "SAVEPOINT ledgercheck_row"); err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := s.tx.Exec(ctx, sql, args...)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && refused(err) {
		s.errs = append(s.errs, pe)
		if _, rerr := s.tx.Exec(ctx, "ROLLBACK TO SAVEPOINT ledgercheck_row"); rerr != nil {
			return pgconn.CommandTag{}, rerr
		}
		return tag, err
	}
	return tag, err
}

// failedTwice is the finding of a trigger function t whose trigger, fired by different rows,
// failed at least twice as failedBoth says: the first two errors of the same kind in the same
// SQL.
func failedTwice(in Input, t target, errs []*pgconn.PgError, how string) (finding.Finding, bool) {
	for i, a := range errs {
		for _, b := range errs[i+1:] {
			if f, ok := failedBoth(in, t, [2]*pgconn.PgError{a, b}, how); ok {
				return f, true
			}
		}
	}
	return finding.Finding{}, false
}

// callsOf are the two calls of t, with args (the types of its arguments without a default), or
// the first type no two values are generated for.
func callsOf(t target, args []string) ([2]string, string) {
	var lits [2][]string
	for _, typ := range args {
		v, ok := generated[typ]
		if !ok {
			return [2]string{}, typ
		}
		for i := range lits {
			lits[i] = append(lits[i], quoteLiteral(v[i])+"::"+typ)
		}
	}
	var calls [2]string
	for i := range calls {
		call := pgx.Identifier{t.fn.Schema, t.fn.Name}.Sanitize() + "(" + strings.Join(lits[i], ", ") + ")"
		// The result is read (NOT ... IS NULL), or the planner may leave out a STABLE call whose
		// value nothing uses.
		calls[i] = "SELECT pg_catalog.count(*) FROM (SELECT " + call + " AS v) s WHERE NOT (s.v IS NULL)"
	}
	return calls, ""
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// callOnce runs call in a transaction of its own, rolled back, with the call's timeouts, and
// returns the error the server gave it (nil when it succeeded); a lost session is the error.
func callOnce(ctx context.Context, conn *pgx.Conn, call string) (*pgconn.PgError, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("calling a function: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to keep
	batch := "SET LOCAL statement_timeout = '" + callTimeout + "'; SET LOCAL lock_timeout = '" + callLockTimeout + "'"
	if _, err := tx.Exec(ctx, batch); err != nil {
		return nil, fmt.Errorf("calling a function: %w", err)
	}
	_, err = tx.Exec(ctx, call)
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &pe) && refused(err):
		return pe, nil
	default:
		return nil, fmt.Errorf("calling a function: %w", err)
	}
}

// failedBoth is the finding of t's two calls, when both failed as the introduction says; how
// says what the calls were.
func failedBoth(in Input, t target, errs [2]*pgconn.PgError, how string) (finding.Finding, bool) {
	a, b := errs[0], errs[1]
	if a == nil || b == nil || a.Code != b.Code || a.Message != b.Message || a.InternalQuery != b.InternalQuery ||
		!strings.HasPrefix(a.Code, "42") || a.Code == "42501" {
		return finding.Finding{}, false
	}
	m := whereRE.FindStringSubmatch(strings.SplitN(a.Where, "\n", 2)[0])
	if m == nil || m[2] != t.fn.Name || (m[1] != "" && m[1] != t.fn.Schema) {
		return finding.Finding{}, false
	}
	name := quotedName(a.Message)
	if m := unquotedRE.FindStringSubmatch(a.Message); name == "" && m != nil {
		name = m[1] + m[2]
	}
	body := t.create.Func().Body
	if !strings.ContainsFunc(name, unicode.IsLetter) || !word(lastPart(name)).MatchString(body) {
		return finding.Finding{}, false
	}
	var line int
	fmt.Sscanf(m[3], "%d", &line)
	// On the statement's line, the finding points at the name where the line writes it
	// (inBody looks for the name its diagnostic's message quotes).
	d := diag{lineno: line, sqlstate: a.Code, message: `"` + lastPart(name) + `"`}
	msg := fmt.Sprintf("%s: the SQL it builds at run time fails whatever it is given: %s (%s, the same error at the same statement)", t.label(), a.Message, how)
	return finding.Finding{Phase: finding.PhaseBodies, Rule: RuleBodyCannotRun, Severity: severity(RuleBodyCannotRun), Pos: place(in, t, d),
		Message: msg, Object: t.label(), Detail: labelled("QUERY: ", a.InternalQuery, "HINT: ", a.Hint)}, true
}

// lastPart is the last dotted part of a name an error quotes ("n.titel": "titel").
func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}
