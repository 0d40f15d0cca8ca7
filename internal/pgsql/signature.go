package pgsql

import (
	"ledgercheck/internal/finding"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Signature is the declared signature of a top-level CREATE FUNCTION or CREATE PROCEDURE, with
// the types as written, typmods included. pg_proc keeps no typmod for parameters and result
// columns, so the source is the only place where vector(1536) and vector(1024) differ in a
// signature.
type Signature struct {
	// Name is the function's name, its schema resolved through the search_path in effect.
	Name Name `json:"name"`
	// Procedure is set for CREATE PROCEDURE.
	Procedure bool `json:"procedure,omitempty"`
	// Params are the parameters in order, RETURNS TABLE columns included (Mode "table").
	Params []Param `json:"params"`
	// Returns is the declared result type ("" for RETURNS TABLE and procedures).
	Returns string `json:"returns,omitempty"`
	// ReturnsPos is where the result type is written.
	ReturnsPos finding.Position `json:"returns_pos,omitzero"`
	// Stmt is the index of the statement in [File.Stmts]; Pos is where it starts.
	Stmt int              `json:"stmt"`
	Pos  finding.Position `json:"pos"`
}

// Param is one declared parameter of a [Signature].
type Param struct {
	// Name is the parameter's name ("" when it has none).
	Name string `json:"name,omitempty"`
	// Mode is "in", "out", "inout", "variadic" or "table" (a RETURNS TABLE column).
	Mode string `json:"mode"`
	// Type is the type as declared, normalized: the type's own name without its schema (as
	// the parser resolves aliases: float is float8, integer is int4), then its typmods and
	// array bounds, e.g. "vector(1536)", "numeric(3,2)", "uuid[]".
	Type string `json:"type"`
	// Pos is where the type is written.
	Pos finding.Position `json:"pos"`
}

// Signatures returns the declared signatures of the file's top-level CREATE FUNCTION and
// CREATE PROCEDURE statements, in file order.
func (f *File) Signatures() []Signature { return f.sigs }

// signature returns the declared signature of the top-level statement st, whose name the
// analyzer resolved to name; tree locations are offsets from base.
func (f *File) signature(st *Statement, x *pg_query.CreateFunctionStmt, name Name, base int) Signature {
	sig := Signature{Name: name, Procedure: x.IsProcedure, Stmt: st.Index, Pos: st.Pos}
	for _, pn := range x.Parameters {
		p := pn.GetFunctionParameter()
		if p == nil {
			continue
		}
		sig.Params = append(sig.Params, Param{
			Name: p.Name,
			Mode: paramMode(p.Mode),
			Type: typeText(p.ArgType),
			Pos:  f.typePos(p.ArgType, base, st.Pos),
		})
	}
	if x.ReturnType != nil && !hasTableParams(sig.Params) {
		sig.Returns = typeText(x.ReturnType)
		sig.ReturnsPos = f.typePos(x.ReturnType, base, st.Pos)
	}
	return sig
}

func hasTableParams(ps []Param) bool {
	for _, p := range ps {
		if p.Mode == "table" {
			return true
		}
	}
	return false
}

func paramMode(m pg_query.FunctionParameterMode) string {
	switch m {
	case pg_query.FunctionParameterMode_FUNC_PARAM_OUT:
		return "out"
	case pg_query.FunctionParameterMode_FUNC_PARAM_INOUT:
		return "inout"
	case pg_query.FunctionParameterMode_FUNC_PARAM_VARIADIC:
		return "variadic"
	case pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
		return "table"
	}
	return "in"
}

func (f *File) typePos(t *pg_query.TypeName, base int, def finding.Position) finding.Position {
	if t == nil || t.Location < 0 {
		return def
	}
	return f.Pos(base + int(t.Location))
}

// typeText renders a declared type: its last name (no schema), typmods, array bounds, and
// %TYPE / SETOF markers.
func typeText(t *pg_query.TypeName) string {
	if t == nil {
		return ""
	}
	names := strs(t.Names)
	var b strings.Builder
	if t.Setof {
		b.WriteString("setof ")
	}
	if len(names) > 0 {
		if t.PctType {
			b.WriteString(strings.Join(names, "."))
			b.WriteString("%type")
		} else {
			b.WriteString(names[len(names)-1])
		}
	}
	if len(t.Typmods) > 0 {
		mods := make([]string, 0, len(t.Typmods))
		for _, m := range t.Typmods {
			mods = append(mods, constText(m))
		}
		b.WriteString("(" + strings.Join(mods, ",") + ")")
	}
	for _, ab := range t.ArrayBounds {
		if iv := ab.GetInteger(); iv != nil && iv.Ival >= 0 {
			b.WriteString("[" + strconv.Itoa(int(iv.Ival)) + "]")
		} else {
			b.WriteString("[]")
		}
	}
	return b.String()
}

func constText(n *pg_query.Node) string {
	c := n.GetAConst()
	if c == nil {
		if cr := n.GetColumnRef(); cr != nil {
			return strings.Join(strs(cr.Fields), ".")
		}
		return "?"
	}
	switch {
	case c.GetIval() != nil:
		return strconv.Itoa(int(c.GetIval().Ival))
	case c.GetFval() != nil:
		return c.GetFval().Fval
	case c.GetSval() != nil:
		return c.GetSval().Sval
	}
	return "?"
}
