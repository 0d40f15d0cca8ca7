package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The DO family: DO blocks, whose PL/pgSQL is analysed as statements of their own, and the
// EXECUTE statements of PL/pgSQL ([Dynamic]), which the body walker records (body.go).
var doStatements = statements{
	{(*pg_query.Node_DoStmt)(nil), doBlock},
}

// Dynamic describes a PL/pgSQL EXECUTE (or FOR ... EXECUTE, RETURN QUERY EXECUTE, OPEN ...
// FOR EXECUTE).
type Dynamic struct {
	// Literal reports whether its SQL was a string literal (or a concatenation of literals),
	// whose statements then appear as Ops of their own.
	Literal bool   `json:"literal"`
	SQL     string `json:"sql,omitempty"`
}

func (*Dynamic) family() string { return "do" }

// Dynamic returns the detail of a PL/pgSQL EXECUTE, or nil.
func (o *Op) Dynamic() *Dynamic {
	d, _ := o.Family.(*Dynamic)
	return d
}

func doBlock(a *analyzer, sc *scope, n *pg_query.Node, op *draft, sp span) func() {
	x := n.GetDoStmt()
	start, end := sp.start, sp.end
	op.Verb, op.Tag = VerbDo, "DO"
	lang, body, loc := "plpgsql", "", -1
	for _, arg := range x.Args {
		d := arg.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "as":
			body, loc = d.Arg.GetString_().GetSval(), int(d.Location)
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().GetSval())
		}
	}
	return func() {
		if loc < 0 {
			return
		}
		lit, bm := a.bodyLiteral(sc, loc, body)
		if lang != "plpgsql" {
			a.probs = append(a.probs, Problem{Pos: a.f.Pos(bm(0)), Msg: "a DO block in language " + lang + " is not analysed"})
			return
		}
		a.plpgsql(sc, sc.src[start:end], lit.value, bm, InDo, Name{})
	}
}
