package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Trigger is the detail of CREATE TRIGGER: what a reviewer of the trigger reviewed (a lint.allow
// entry pins it).
type Trigger struct {
	// Timing is before, after or instead of.
	Timing string `json:"timing"`
	// Events are insert, update (update of a, b for a column list), delete and truncate, in
	// that order.
	Events []string `json:"events"`
	// Level is row or statement.
	Level string `json:"level"`
	// Function is the trigger function, schema-qualified (an unqualified name resolved through
	// the search path), with the arguments the trigger passes it: public.f() or public.f('a').
	Function string `json:"function"`
	// When is set when the trigger has a WHEN condition.
	When bool `json:"when,omitempty"`
}

func (*Trigger) family() string { return "attached" }

// Trigger returns the detail of a CREATE TRIGGER, or nil.
func (o *Op) Trigger() *Trigger {
	t, _ := o.Family.(*Trigger)
	return t
}

// PostgreSQL's trigger type bits (catalog/pg_trigger.h), as CreateTrigStmt carries them.
const (
	triggerBefore   = 1 << 1
	triggerInsert   = 1 << 2
	triggerDelete   = 1 << 3
	triggerUpdate   = 1 << 4
	triggerTruncate = 1 << 5
	triggerInstead  = 1 << 6
)

// triggerOf reads a CREATE TRIGGER's timing, events, level and function.
func (a *analyzer) triggerOf(x *pg_query.CreateTrigStmt) *Trigger {
	t := &Trigger{Timing: "after", Level: "statement", When: x.WhenClause != nil}
	switch {
	case x.Timing&triggerBefore != 0:
		t.Timing = "before"
	case x.Timing&triggerInstead != 0:
		t.Timing = "instead of"
	}
	if x.Row {
		t.Level = "row"
	}
	if x.Events&triggerInsert != 0 {
		t.Events = append(t.Events, "insert")
	}
	if x.Events&triggerUpdate != 0 {
		if cols := strs(x.Columns); len(cols) > 0 {
			t.Events = append(t.Events, "update of "+strings.Join(cols, ", "))
		} else {
			t.Events = append(t.Events, "update")
		}
	}
	if x.Events&triggerDelete != 0 {
		t.Events = append(t.Events, "delete")
	}
	if x.Events&triggerTruncate != 0 {
		t.Events = append(t.Events, "truncate")
	}
	names := strs(x.Funcname)
	if len(names) > 0 {
		schema := ""
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		n, _ := a.resolve(schema, names[len(names)-1])
		var args []string
		for _, arg := range x.Args {
			if s := arg.GetString_(); s != nil {
				args = append(args, "'"+strings.ReplaceAll(s.Sval, "'", "''")+"'")
			}
		}
		t.Function = n.String() + "(" + strings.Join(args, ", ") + ")"
	}
	return t
}
