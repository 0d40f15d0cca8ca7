package observe

import (
	"fmt"
	"strconv"
)

// What an action did beyond its own rows is read from the transaction's own statistics: a
// session sees, in pg_stat_get_xact_tuples_inserted/updated/deleted, the rows its current
// transaction inserted, updated and deleted in every table (savepoints rolled back included: an
// aborted subtransaction's counts stay, PostgreSQL 15 and 17 alike), and in
// tuples_returned/fetched the rows it read. The observer reads them before and after each
// action, inside the transaction, with no privilege: no privileged session watches the
// personas.

// countersSQL reads the tables the transaction touched so far: user tables of any schema and
// the large objects, with what role (a literal, spliced in) may do to each itself: its table
// privileges, row level security, and the commands of the permissive policies that apply to it.
const countersSQL = `SELECT s.oid, pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname),
  s.ins, s.upd, s.del, s.rd,
  pg_catalog.has_table_privilege(%[1]s, s.oid, 'INSERT'), pg_catalog.has_table_privilege(%[1]s, s.oid, 'UPDATE'),
  pg_catalog.has_table_privilege(%[1]s, s.oid, 'DELETE'), c.relrowsecurity,
  pg_catalog.array_to_string(ARRAY(SELECT DISTINCT p.polcmd::pg_catalog.text FROM pg_catalog.pg_policy p
    WHERE p.polrelid OPERATOR(pg_catalog.=) s.oid AND p.polpermissive
      AND (0::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (p.polroles)
           OR EXISTS (SELECT 1 FROM pg_catalog.unnest(p.polroles) x WHERE pg_catalog.pg_has_role(%[1]s, x, 'MEMBER')))), '')
FROM (
  SELECT c.oid,
    pg_catalog.pg_stat_get_xact_tuples_inserted(c.oid) AS ins,
    pg_catalog.pg_stat_get_xact_tuples_updated(c.oid) AS upd,
    pg_catalog.pg_stat_get_xact_tuples_deleted(c.oid) AS del,
    pg_catalog.pg_stat_get_xact_tuples_returned(c.oid) OPERATOR(pg_catalog.+) pg_catalog.pg_stat_get_xact_tuples_fetched(c.oid)
      OPERATOR(pg_catalog.+) coalesce((SELECT pg_catalog.sum(pg_catalog.pg_stat_get_xact_tuples_fetched(i.indexrelid))::pg_catalog.int8
                                       FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) c.oid), 0) AS rd
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
  WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'm']::pg_catalog."char"[])
    AND (NOT n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'information_schema', 'pg_toast']::pg_catalog.name[])
         OR c.relname OPERATOR(pg_catalog.=) ANY (ARRAY['pg_largeobject', 'pg_largeobject_metadata']::pg_catalog.name[]))
) s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.oid
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
WHERE s.ins OPERATOR(pg_catalog.>) 0 OR s.upd OPERATOR(pg_catalog.>) 0 OR s.del OPERATOR(pg_catalog.>) 0 OR s.rd OPERATOR(pg_catalog.>) 0`

// counts is one table's counters, and what the role they were read for may do to it itself.
type counts struct {
	table             string
	ins, upd, del, rd int64
	canIns, canUpd    bool
	canDel, rls       bool
	cmds              string // the commands of its permissive policies for the role: r a w d *
}

// counters is countersSQL's result, by table oid.
type counters map[uint32]counts

// countersFor is countersSQL for role.
func countersFor(role string) string { return fmt.Sprintf(countersSQL, quoteLiteral(role)) }

// parseCounters reads countersSQL's rows.
func parseCounters(r result) counters {
	out := counters{}
	for i := range r.rows {
		oid, _ := strconv.ParseUint(r.value(i, 0), 10, 32)
		num := func(j int) int64 { n, _ := strconv.ParseInt(r.value(i, j), 10, 64); return n }
		b := func(j int) bool { return r.value(i, j) == "t" }
		out[uint32(oid)] = counts{table: r.value(i, 1), ins: num(2), upd: num(3), del: num(4), rd: num(5),
			canIns: b(6), canUpd: b(7), canDel: b(8), rls: b(9), cmds: r.value(i, 10)}
	}
	return out
}

// Effect is what an action did to a table besides its own rows (or, for a function call, what
// the call read).
type Effect struct {
	Table    string `json:"table"`
	Inserted int64  `json:"inserted,omitempty"`
	Updated  int64  `json:"updated,omitempty"`
	Deleted  int64  `json:"deleted,omitempty"`
	// Read is how many rows the action read of the table (function calls).
	Read int64 `json:"read,omitempty"`
	// Unwritable says the persona could not have made the change itself: it lacks the
	// privilege, or no policy of the table lets its role do it.
	Unwritable bool `json:"unwritable,omitempty"`
	oid        uint32
}

// diff is what changed between two readings.
func diff(before, after counters) []Effect {
	var out []Effect
	for oid, a := range after {
		b := before[oid]
		e := Effect{Table: a.table, oid: oid, Inserted: a.ins - b.ins, Updated: a.upd - b.upd, Deleted: a.del - b.del, Read: a.rd - b.rd}
		if e.Inserted == 0 && e.Updated == 0 && e.Deleted == 0 && e.Read == 0 {
			continue
		}
		e.Unwritable = e.Inserted > 0 && !a.may(a.canIns, 'a') || e.Updated > 0 && !a.may(a.canUpd, 'w') || e.Deleted > 0 && !a.may(a.canDel, 'd')
		out = append(out, e)
	}
	return out
}

// may reports whether the role may do a command (policy code cmd) to the table itself, given
// its table privilege: the privilege, and, under row level security, a permissive policy.
func (c counts) may(priv bool, cmd byte) bool {
	if !priv {
		return false
	}
	if !c.rls {
		return true
	}
	for i := 0; i < len(c.cmds); i++ {
		if c.cmds[i] == cmd || c.cmds[i] == '*' {
			return true
		}
	}
	return false
}

// writes reports whether the effect changed rows.
func (e Effect) writes() bool { return e.Inserted > 0 || e.Updated > 0 || e.Deleted > 0 }

// String is "3 rows inserted into public.t".
func (e Effect) String() string {
	var parts []string
	for _, x := range []struct {
		n    int64
		verb string
	}{{e.Inserted, "inserted into"}, {e.Updated, "updated in"}, {e.Deleted, "deleted from"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", rowsOf(x.n), x.verb))
		}
	}
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s + " " + e.Table
}

// rowsOf is "1 row", "3 rows".
func rowsOf(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
