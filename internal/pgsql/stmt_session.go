package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The session family: transaction control (BEGIN, COMMIT, ROLLBACK, ...), SET and RESET (which
// move the search_path lint resolves names with), ALTER SYSTEM ([Setting]) and NOTIFY
// ([Notify]).
var sessionStatements = statements{
	{(*pg_query.Node_TransactionStmt)(nil), transaction},
	{(*pg_query.Node_VariableSetStmt)(nil), set},
	{(*pg_query.Node_AlterSystemStmt)(nil), alterSystem},
	{(*pg_query.Node_NotifyStmt)(nil), notify},
}

// Setting is the detail of SET, RESET and ALTER SYSTEM.
type Setting struct {
	// Name is the setting, lower case.
	Name string `json:"name"`
	// Values are SET's (nil for RESET or SET ... TO DEFAULT).
	Values []string `json:"values,omitempty"`
	// Local is SET LOCAL's: the setting lasts until the end of the transaction.
	Local bool `json:"local,omitempty"`
}

func (*Setting) family() string { return "session" }

// Setting returns the setting of a SET, RESET or ALTER SYSTEM, or nil.
func (o *Op) Setting() *Setting {
	s, _ := o.Family.(*Setting)
	return s
}

// Notify is the detail of NOTIFY.
type Notify struct {
	Channel string `json:"channel"`
	Payload string `json:"payload,omitempty"`
}

func (*Notify) family() string { return "session" }

// Notify returns the channel and payload of a NOTIFY, or nil.
func (o *Op) Notify() *Notify {
	n, _ := o.Family.(*Notify)
	return n
}

var transactionVerbs = map[pg_query.TransactionStmtKind]struct {
	verb Verb
	tag  string
}{
	pg_query.TransactionStmtKind_TRANS_STMT_BEGIN:    {VerbBegin, "BEGIN"},
	pg_query.TransactionStmtKind_TRANS_STMT_START:    {VerbBegin, "BEGIN"},
	pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:   {VerbCommit, "COMMIT"},
	pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK: {VerbRollback, "ROLLBACK"},
}

func transaction(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	kind := n.GetTransactionStmt().Kind
	if v, ok := transactionVerbs[kind]; ok {
		op.Verb, op.Tag = v.verb, v.tag
	} else {
		op.Tag = strings.TrimPrefix(kind.String(), "TRANS_STMT_")
	}
	return nil
}

func set(a *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetVariableSetStmt()
	s := &Setting{Name: strings.ToLower(x.Name), Local: x.IsLocal}
	op.Verb, op.Tag, op.Family = VerbSet, "SET", s
	if x.Kind == pg_query.VariableSetKind_VAR_RESET || x.Kind == pg_query.VariableSetKind_VAR_RESET_ALL {
		op.Tag = "RESET"
	}
	if x.Kind == pg_query.VariableSetKind_VAR_SET_VALUE {
		s.Values = setValues(x)
	}
	form := "SET"
	if x.IsLocal {
		form = "SET LOCAL"
	}
	op.addSetting(x, form, op.Pos)
	if s.Name == "search_path" || x.Kind == pg_query.VariableSetKind_VAR_RESET_ALL {
		if x.Kind == pg_query.VariableSetKind_VAR_SET_VALUE {
			a.path = searchPath(s.Values)
		} else {
			a.path = DefaultSearchPath
		}
	}
	return nil
}

func alterSystem(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Verb, op.Tag = VerbAlterSystem, "ALTER SYSTEM"
	if x := n.GetAlterSystemStmt().Setstmt; x != nil {
		op.Family = &Setting{Name: strings.ToLower(x.Name)}
		op.addSetting(x, "ALTER SYSTEM", op.Pos)
	}
	return nil
}

func notify(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	x := n.GetNotifyStmt()
	op.Verb, op.Tag, op.Family = VerbNotify, "NOTIFY", &Notify{Channel: x.Conditionname, Payload: x.Payload}
	return nil
}

// setValues returns the values of SET name = v1, v2, ... as strings.
func setValues(x *pg_query.VariableSetStmt) []string {
	vals := []string{}
	for _, arg := range x.Args {
		if c := arg.GetAConst(); c != nil {
			switch {
			case c.GetSval() != nil:
				vals = append(vals, c.GetSval().Sval)
			case c.GetIval() != nil:
				vals = append(vals, itoa(int(c.GetIval().Ival)))
			case c.GetFval() != nil:
				vals = append(vals, c.GetFval().Fval)
			case c.GetBoolval() != nil:
				vals = append(vals, map[bool]string{true: "on", false: "off"}[c.GetBoolval().Boolval])
			}
		}
	}
	return vals
}

// searchPath turns SET search_path values into the schemas that resolve names. Each value is one
// schema, as the parser folded it: PostgreSQL quotes every element of a list setting, so even
// SET search_path = 'a, b' names a single schema "a, b". "$user" and empty entries are dropped.
func searchPath(vals []string) []string {
	var path []string
	for _, v := range vals {
		if v == "" || v == "$user" {
			continue
		}
		path = append(path, v)
	}
	return path
}
