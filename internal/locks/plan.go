package locks

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// plan is what the file says about how production runs it, statement by statement of the
// script: which transaction each statement belongs to there, and whether a lock_timeout is set
// when it starts.
//
// Production runs a sidecar in one transaction: `supabase db push` runs each migration file in a
// transaction, and the SQL editor runs what is pasted as one implicit transaction. So every
// statement belongs to one transaction with the statements around it, but for the file's own
// transaction control: COMMIT and ROLLBACK end one. A BEGIN does not: in the SQL editor's one
// Query message it turns the implicit transaction, statements before it included, into an
// explicit one, and inside db push's transaction it is a warning. The trace runs
// each autocommitted statement in a transaction of its own, as psql would (scratch's observe.go),
// and reads its full set of locks; the plan says which of them production would already hold.
type plan struct {
	tx      []int  // per statement of the script: its production transaction
	timeout []bool // per statement: a lock_timeout is set in the file before it
	line    []int  // per statement: its line (for "until line N")
}

// planOf reads f (the parse of the script sc) into a plan.
func planOf(f *pgsql.File, sc *scratch.Script) plan {
	n := len(sc.Statements)
	p := plan{tx: make([]int, n), timeout: make([]bool, n), line: make([]int, n)}
	byStmt := map[int][]*pgsql.Op{}
	if f != nil {
		for i := range f.Ops {
			op := &f.Ops[i]
			byStmt[op.Stmt] = append(byStmt[op.Stmt], op)
		}
	}
	tx, ended := 0, false
	var session, local bool // a lock_timeout set for the session, and for the transaction
	for i, st := range sc.Statements {
		ops := byStmt[st.Index]
		top := topVerb(ops, st.Index)
		if ended {
			tx, ended, local = tx+1, false, false
		}
		p.tx[i], p.timeout[i], p.line[i] = tx, session || local, st.Pos.Line
		for _, op := range ops {
			if op.Context == pgsql.InFunction {
				continue // a function body sets nothing until it is called
			}
			if set, isLocal, ok := setsTimeout(op, f); ok {
				if isLocal {
					local = set
				} else { // a session-level SET replaces a SET LOCAL of the same transaction
					session, local = set, false
				}
			}
		}
		if top == pgsql.VerbCommit || top == pgsql.VerbRollback {
			ended = true
		}
	}
	return p
}

// topVerb is the verb of the top-level statement stmt among ops.
func topVerb(ops []*pgsql.Op, stmt int) pgsql.Verb {
	for _, op := range ops {
		if op.Context == pgsql.TopLevel && op.Stmt == stmt {
			return op.Verb
		}
	}
	return ""
}

// setsTimeout reports whether op sets lock_timeout (ok), to a value that times out (set: not 0,
// not RESET or DEFAULT), for the transaction (local) or the session. A set_config call whose
// statement names lock_timeout counts as setting it for the session: its arguments are not
// read.
func setsTimeout(op *pgsql.Op, f *pgsql.File) (set, local, ok bool) {
	if s := op.Setting(); s != nil && op.Verb == pgsql.VerbSet && s.Name == "lock_timeout" {
		return len(s.Values) > 0 && !zeroTimeout(s.Values[0]), s.Local, true
	}
	for _, c := range op.Calls {
		if c.Name.Name == "set_config" && (c.Name.Schema == "" || c.Name.Schema == "pg_catalog") &&
			f != nil && op.Stmt < len(f.Stmts) && strings.Contains(strings.ToLower(f.Stmts[op.Stmt].Text), "lock_timeout") {
			return true, false, true
		}
	}
	return false, false, false
}

// zeroTimeout reports whether a lock_timeout value disables the timeout.
func zeroTimeout(v string) bool {
	v = strings.TrimRight(strings.TrimSpace(strings.ToLower(v)), "msinh ") // 0, 0ms, 0s, 0min, 0h
	return strings.TrimLeft(v, "0") == ""
}
