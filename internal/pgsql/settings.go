package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// SettingChange is a change a statement makes to a run-time setting, in any of its forms: SET
// and SET LOCAL, ALTER SYSTEM, ALTER ROLE/DATABASE ... SET, a function's SET clause (CREATE or
// ALTER FUNCTION) and a call of set_config(). RESET and SET ... TO DEFAULT, which go back to the
// value the session started with, are not changes.
type SettingChange struct {
	// Name is the setting, lower case; "" when set_config's name is not a literal.
	Name string `json:"name"`
	// Value is the value set, as written; Dynamic is set when it is not a literal.
	Value   string `json:"value"`
	Dynamic bool   `json:"dynamic,omitempty"`
	// Form is the statement or call that sets it ("SET", "set_config()", ...).
	Form string           `json:"form"`
	Pos  finding.Position `json:"pos"`
}

// The statements that change a setting outside the session, which no other family analyses.
var settingStatements = statements{
	{(*pg_query.Node_AlterRoleSetStmt)(nil), alterRoleSet},
	{(*pg_query.Node_AlterDatabaseSetStmt)(nil), alterDatabaseSet},
}

func alterRoleSet(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Tag = "ALTER ROLE"
	op.addSetting(n.GetAlterRoleSetStmt().Setstmt, "ALTER ROLE ... SET", op.Pos)
	return nil
}

func alterDatabaseSet(_ *analyzer, _ *scope, n *pg_query.Node, op *draft, _ span) func() {
	op.Tag = "ALTER DATABASE"
	op.addSetting(n.GetAlterDatabaseSetStmt().Setstmt, "ALTER DATABASE ... SET", op.Pos)
	return nil
}

// addSetting records the change vs makes, if it makes one.
func (op *draft) addSetting(vs *pg_query.VariableSetStmt, form string, pos finding.Position) {
	if vs == nil || vs.Kind != pg_query.VariableSetKind_VAR_SET_VALUE {
		return
	}
	op.Settings = append(op.Settings, SettingChange{Name: strings.ToLower(vs.Name), Value: strings.Join(setValues(vs), ", "), Form: form, Pos: pos})
}

// functionSettings records the settings of a function's SET clauses (opts: CREATE FUNCTION's
// options or ALTER FUNCTION's actions).
func (op *draft) functionSettings(opts []*pg_query.Node) {
	for _, o := range opts {
		if d := o.GetDefElem(); d != nil && d.Defname == "set" {
			op.addSetting(d.Arg.GetVariableSetStmt(), "a function's SET clause", op.Pos)
		}
	}
}

// setConfig records a call of set_config(name, value, is_local): its name and value when they
// are literals.
func (op *draft) setConfig(x *pg_query.FuncCall, pos finding.Position) {
	ch := SettingChange{Form: "set_config()", Pos: pos, Dynamic: true}
	if len(x.Args) > 0 {
		if s := literalString(x.Args[0]); s != nil {
			ch.Name = strings.ToLower(*s)
		}
	}
	if len(x.Args) > 1 {
		if s := literalString(x.Args[1]); s != nil {
			ch.Value, ch.Dynamic = *s, false
		}
	}
	op.Settings = append(op.Settings, ch)
}

// literalString is the string constant n is (a cast of one included), or nil.
func literalString(n *pg_query.Node) *string {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		return &c.GetSval().Sval
	}
	return nil
}
