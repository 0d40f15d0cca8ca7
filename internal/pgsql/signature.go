package pgsql

import (
	"fmt"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// ArgType renders a type the way function identities compare it: the type's own name without
// schema or typmod (the parser has already resolved integer to int4, double precision to
// float8), and "[]" for an array.
func ArgType(t *pg_query.TypeName) string {
	names := strs(t.Names)
	if len(names) == 0 {
		return ""
	}
	s := names[len(names)-1]
	if t.PctType {
		s = strings.Join(names, ".") + "%type"
	}
	if len(t.ArrayBounds) > 0 {
		s += "[]"
	}
	return s
}

// displayTypes are SQL's names of the built-in types whose internal names [ArgType] returns.
var displayTypes = map[string]string{
	"int2": "smallint", "int4": "integer", "int8": "bigint", "float4": "real", "float8": "double precision",
	"bool": "boolean", "varchar": "character varying", "bpchar": "character", "timestamptz": "timestamp with time zone",
	"timestamp": "timestamp without time zone", "timetz": "time with time zone", "time": "time without time zone",
}

// DisplayType renders an [ArgType] as PostgreSQL prints identity arguments ("int4" as "integer").
func DisplayType(t string) string {
	base, arr := strings.CutSuffix(t, "[]")
	if d, ok := displayTypes[base]; ok {
		base = d
	}
	if arr {
		base += "[]"
	}
	return base
}

// identityArgs returns the identity argument types of a CREATE FUNCTION's parameters: the
// IN, INOUT and VARIADIC ones.
func identityArgs(params []*pg_query.Node) []string {
	args := []string{}
	for _, pn := range params {
		p := pn.GetFunctionParameter()
		if p == nil {
			continue
		}
		switch p.Mode {
		case pg_query.FunctionParameterMode_FUNC_PARAM_OUT, pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
			continue
		}
		args = append(args, ArgType(p.ArgType))
	}
	return args
}

// withArgs converts the ObjectWithArgs of DROP, COMMENT, GRANT and ALTER FUNCTION.
func (a *analyzer) withArgs(kind ObjKind, x *pg_query.ObjectWithArgs, at finding.Position) Object {
	obj := a.listObj(kind, strs(x.Objname), at)
	if x.ArgsUnspecified {
		return obj
	}
	obj.HasArgs, obj.Args = true, []string{}
	if len(x.Objfuncargs) > 0 {
		obj.Args = identityArgs(x.Objfuncargs)
		return obj
	}
	for _, t := range x.Objargs {
		if tn := t.GetTypeName(); tn != nil {
			obj.Args = append(obj.Args, ArgType(tn))
		}
	}
	return obj
}

// ParseFunctionRef reads a function as configuration names it, "public.f(text, jsonb)" or
// "public.f" (every overload), with the types resolved as [ArgType] resolves them. The same
// reference is parsed once per process (configuration is read for every file linted): the
// results are kept, up to maxFunctionRefs of them.
func ParseFunctionRef(s string) (Object, error) {
	if r, ok := functionRefs.Load(s); ok {
		return r.(functionRef).result()
	}
	r := parseFunctionRef(s)
	if functionRefCount.Add(1) <= maxFunctionRefs {
		functionRefs.Store(s, r)
	}
	return r.result()
}

// maxFunctionRefs bounds the references [ParseFunctionRef] keeps.
const maxFunctionRefs = 4096

var (
	functionRefs     sync.Map // string → functionRef
	functionRefCount atomic.Int64
)

// functionRef is what parsing one reference gave.
type functionRef struct {
	obj Object
	err error
}

// result returns the reference's object, with arguments of its own, or its error.
func (r functionRef) result() (Object, error) {
	o := r.obj
	o.Args = slices.Clone(o.Args)
	return o, r.err
}

func parseFunctionRef(s string) functionRef {
	f, err := Parse("function reference", []byte("DROP FUNCTION "+s))
	if err != nil || len(f.Ops) != 1 || len(f.Ops[0].Objects) != 1 {
		return functionRef{err: fmt.Errorf("%q is not a function name with an optional argument list", s)}
	}
	o := f.Ops[0].Objects[0]
	o.Pos = finding.Position{}
	return functionRef{obj: o}
}
