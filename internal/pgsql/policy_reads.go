package pgsql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ledgercheck/ledgercheck/internal/finding"
)

// PolicyRead is something a policy's condition reads besides the row's columns, constants and
// the requester (auth.uid(), auth.jwt() and the rest of the auth schema's functions, a request.*
// setting, CURRENT_USER): a function call, or one of SQL's value functions (SESSION_USER,
// CURRENT_DATE, ...). Whether what it reads can differ from one deployment to another (the
// function's volatility) is lint's to judge.
type PolicyRead struct {
	// Clause is "USING" or "WITH CHECK".
	Clause string           `json:"clause"`
	Pos    finding.Position `json:"pos"`
	// Call is the function called, as [Op.Calls] has it; zero for a value function.
	Call Call `json:"call,omitzero"`
	// Value is the value function as SQL writes it, lower case ("session_user", "current_date");
	// "" for a call.
	Value string `json:"value,omitempty"`
	// Alone is set when the term of the condition's AND, OR and NOT that holds the read refers to
	// no column and reads no requester (auth.*, a request.* setting, CURRENT_USER): the term's
	// value is then the same for every row and every requester.
	Alone bool `json:"alone,omitempty"`
}

// valueFunctions are SQL's value functions by operator, as SQL writes them.
var valueFunctions = map[pg_query.SQLValueFunctionOp]string{
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:        "current_date",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:        "current_time",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:      "current_time",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:   "current_timestamp",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N: "current_timestamp",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:           "localtime",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:         "localtime",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:      "localtimestamp",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:    "localtimestamp",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:        "current_role",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:        "current_user",
	pg_query.SQLValueFunctionOp_SVFOP_USER:                "user",
	pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:        "session_user",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:     "current_catalog",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:      "current_schema",
}

// RequesterValue reports whether a value function is the requester: the role the Data API set
// for the request (anon, authenticated), the same in every deployment.
func RequesterValue(v string) bool {
	return v == "current_user" || v == "current_role" || v == "user"
}

// RequesterCall reports whether c reads the requester: a function of Supabase's auth schema
// (auth.uid(), auth.jwt(), auth.role(), auth.email()), which read the request's JWT, or a
// request.* setting PostgREST sets for the request.
func RequesterCall(c Call) bool {
	if c.Name.Schema == "auth" {
		return true
	}
	if c.Name.Schema != "" && c.Name.Schema != "pg_catalog" {
		return false
	}
	return c.Name.Name == "current_setting" && strings.HasPrefix(c.Literal, "request.")
}

// conditionReads returns what a policy's condition n (its USING or WITH CHECK clause) reads
// besides columns, constants and the requester, each marked [PolicyRead.Alone] when its term of
// the condition's AND, OR and NOT refers to no column and reads no requester.
func conditionReads(a *analyzer, sc *scope, clause string, n *pg_query.Node, at finding.Position) []PolicyRead {
	if n == nil {
		return nil
	}
	var out []PolicyRead
	for _, term := range boolTerms(n, nil) {
		var reads []PolicyRead
		column, requester := false, false
		walkMessages(term.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *pg_query.ColumnRef:
				column = true
			case *pg_query.FuncCall:
				c, ok := a.call(sc, x, at)
				switch {
				case !ok:
				case RequesterCall(c):
					requester = true
				default:
					reads = append(reads, PolicyRead{Clause: clause, Pos: c.Pos, Call: c})
				}
			case *pg_query.SQLValueFunction:
				if v := a.valueRead(sc, x, at); RequesterValue(v.Name) {
					requester = true
				} else {
					reads = append(reads, PolicyRead{Clause: clause, Pos: v.Pos, Value: v.Name})
				}
			}
		})
		for i := range reads {
			reads[i].Alone = !column && !requester
		}
		out = append(out, reads...)
	}
	return out
}

// boolTerms appends to out the terms of n's AND, OR and NOT, recursively: n itself when it is
// none of them.
func boolTerms(n *pg_query.Node, out []*pg_query.Node) []*pg_query.Node {
	if b := n.GetBoolExpr(); b != nil {
		for _, arg := range b.Args {
			out = boolTerms(arg, out)
		}
		return out
	}
	return append(out, n)
}
