package pgsql

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// FunctionBody is a function's source as the catalog keeps it.
type FunctionBody struct {
	// Language is the function's language (sql, plpgsql, c, internal, ...).
	Language string
	// Arguments is pg_get_function_arguments: it declares the parameter names a PL/pgSQL body
	// refers to. Optional.
	Arguments string
	// Result is pg_get_function_result; "trigger" makes NEW and OLD known to a PL/pgSQL body.
	// Empty for a procedure.
	Result string
	// Body is prosrc, or for a SQL-standard body (BEGIN ATOMIC, RETURN) pg_get_function_sqlbody.
	Body string
}

// The ways [NormalizeFunctionBody] can normalize a body.
const (
	// NormSQL: parsed with pg_query and printed back (deparsed), statement by statement.
	NormSQL = "sql"
	// NormPLpgSQL: parsed with pg_query's PL/pgSQL parser into its JSON tree, line numbers
	// dropped, and every SQL statement and expression in it normalized as NormSQL.
	NormPLpgSQL = "plpgsql"
	// NormTokens: the lexer's tokens joined by single spaces, comments dropped, keywords and
	// unquoted identifiers folded to lower case, literals kept verbatim.
	NormTokens = "tokens"
	// NormText: the body unchanged (other languages, or a body even the lexer rejects).
	NormText = "text"
)

// NormalizeFunctionBody returns the body in a normal form that ignores layout (whitespace, line
// breaks) and comments, and keeps every literal, identifier, operator and typmod: two bodies
// with equal normal forms differ only cosmetically. method is one of NormSQL, NormPLpgSQL,
// NormTokens or NormText.
//
// A SQL or PL/pgSQL body that does not parse falls back to NormTokens (and, should even the
// lexer reject it, to NormText); err then says why, and norm is still usable. Bodies of other
// languages are returned unchanged with method NormText and no error. It never panics.
func NormalizeFunctionBody(fb FunctionBody) (norm, method string, err error) {
	defer func() {
		if r := recover(); r != nil {
			norm, method, err = fb.Body, NormText, fmt.Errorf("normalizer panic: %v", r)
		}
	}()
	switch strings.ToLower(fb.Language) {
	case "sql":
		norm, err = normalizeSQLBody(fb)
		if err == nil {
			return norm, NormSQL, nil
		}
	case "plpgsql":
		norm, err = normalizePLpgSQL(fb)
		if err == nil {
			return norm, NormPLpgSQL, nil
		}
	default:
		return fb.Body, NormText, nil
	}
	if t, terr := normalizeTokens(fb.Body); terr == nil {
		return t, NormTokens, err
	}
	return fb.Body, NormText, err
}

// normalizeSQLBody normalizes the body of a LANGUAGE sql function.
func normalizeSQLBody(fb FunctionBody) (string, error) {
	trimmed := strings.TrimSpace(fb.Body)
	upper := strings.ToUpper(trimmed)
	if strings.HasPrefix(upper, "BEGIN ATOMIC") || strings.HasPrefix(upper, "RETURN") {
		// A SQL-standard body parses only inside CREATE FUNCTION.
		result := fb.Result
		if result == "" {
			return normalizeSQL("CREATE PROCEDURE ledgercheck_body(" + fb.Arguments + ") " + trimmed)
		}
		return normalizeSQL("CREATE FUNCTION ledgercheck_body(" + fb.Arguments + ") RETURNS " + result + " LANGUAGE sql " + trimmed)
	}
	return normalizeSQL(fb.Body)
}

// normalizeSQL parses one or more SQL statements and prints them back. When the deparser
// cannot print the tree, the tree itself (as JSON, source locations removed) is the normal form.
// SQL nested deeper than the deparser safely takes ([maxDeparseNesting]) is an error.
func normalizeSQL(sql string) (string, error) {
	tree, err := parse(sql, maxDeparseNesting)
	if err != nil {
		return "", fmt.Errorf("parsing: %w", err)
	}
	if len(tree.Stmts) == 0 {
		return "", nil
	}
	for _, st := range tree.Stmts {
		st.StmtLocation, st.StmtLen = 0, 0
	}
	out, err := pg_query.Deparse(tree)
	if err == nil {
		return out, nil
	}
	js, jerr := pg_query.ParseToJSON(sql)
	if jerr != nil {
		return "", fmt.Errorf("parsing: %w", jerr)
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return "", fmt.Errorf("decoding the parse tree: %w", err)
	}
	v = stripPositions(v)
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encoding the parse tree: %w", err)
	}
	return string(b), nil
}

// stripPositions removes source positions (location, stmt_location, stmt_len) from a
// pg_query JSON tree.
func stripPositions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "location" || k == "stmt_location" || k == "stmt_len" {
				delete(x, k)
				continue
			}
			x[k] = stripPositions(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripPositions(e)
		}
	}
	return v
}

// normalizePLpgSQL parses a PL/pgSQL body inside a CREATE FUNCTION built from the signature
// (so that parameters, NEW and OLD are known), drops line numbers from the tree, and replaces
// every embedded statement and expression by its normal form.
func normalizePLpgSQL(fb FunctionBody) (string, error) {
	tag := "$ledgercheck$"
	for i := 0; strings.Contains(fb.Body, tag); i++ {
		tag = "$ledgercheck" + strconv.Itoa(i) + "$"
	}
	head := "CREATE FUNCTION ledgercheck_body(" + fb.Arguments + ") RETURNS " + fb.Result
	if fb.Result == "" {
		head = "CREATE PROCEDURE ledgercheck_body(" + fb.Arguments + ")"
	}
	tree, err := plpgsqlTree(head + " LANGUAGE plpgsql AS " + tag + fb.Body + tag)
	if err != nil && (fb.Arguments != "" || fb.Result != "void") {
		// A signature the parser does not take; the body alone still parses if it does not
		// depend on parameter names.
		tree, err = plpgsqlTree("CREATE FUNCTION ledgercheck_body() RETURNS void LANGUAGE plpgsql AS " + tag + fb.Body + tag)
	}
	var te *treeError
	if errors.As(err, &te) {
		return "", fmt.Errorf("decoding the PL/pgSQL tree: %w", te.err)
	}
	if err != nil {
		return "", fmt.Errorf("parsing PL/pgSQL: %w", err)
	}
	tree = normalizePLTree(tree)
	b, err := json.Marshal(tree)
	if err != nil {
		return "", fmt.Errorf("encoding the PL/pgSQL tree: %w", err)
	}
	return string(b), nil
}

// parseMode values of PLpgSQL_expr (RawParseMode in PostgreSQL's parser.h).
const (
	modeDefault  = 0
	modeTypeName = 1
	modeExpr     = 2
	modeAssign1  = 3
	modeAssign2  = 4
	modeAssign3  = 5
)

func normalizePLTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "lineno", "location":
				delete(x, k)
				continue
			case "typname":
				if s, ok := e.(string); ok {
					if t, err := normalizeTokens(s); err == nil {
						x[k] = t
					}
					continue
				}
			case "PLpgSQL_expr":
				if m, ok := e.(map[string]any); ok {
					if q, ok := m["query"].(string); ok {
						mode, _ := m["parseMode"].(float64)
						m["query"] = normalizeExpr(q, int(mode))
					}
				}
			}
			x[k] = normalizePLTree(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizePLTree(e)
		}
	}
	return v
}

// normalizeExpr normalizes the text of a PLpgSQL_expr according to how PL/pgSQL parses it.
// What does not parse is normalized by tokens, or left as it is.
func normalizeExpr(q string, mode int) string {
	var (
		out string
		err error
	)
	switch mode {
	case modeDefault:
		out, err = normalizeSQL(q)
	case modeExpr:
		out, err = normalizeScalar(q)
	case modeAssign1, modeAssign2, modeAssign3:
		out, err = normalizeAssign(q)
	default:
		err = fmt.Errorf("parse mode %d", mode)
	}
	if err == nil {
		return out
	}
	if t, terr := normalizeTokens(q); terr == nil {
		return t
	}
	return q
}

// normalizeScalar normalizes a PL/pgSQL expression the way PL/pgSQL runs it: as SELECT expr.
func normalizeScalar(expr string) (string, error) {
	out, err := normalizeSQL("SELECT " + expr)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(out, "SELECT "), nil
}

// normalizeAssign normalizes "target := expr" (or "target = expr"): the target by tokens, the
// expression as a scalar.
func normalizeAssign(q string) (string, error) {
	res, err := pg_query.Scan(q)
	if err != nil {
		return "", fmt.Errorf("scanning: %w", err)
	}
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_COLON_EQUALS || (t.Token == pg_query.Token_ASCII_61 && q[t.Start:t.End] == "=") {
			target, err := normalizeTokens(q[:t.Start])
			if err != nil {
				return "", err
			}
			expr, err := normalizeScalar(q[t.End:])
			if err != nil {
				return "", err
			}
			return target + " := " + expr, nil
		}
	}
	return "", fmt.Errorf("no assignment operator in %q", q)
}

// normalizeTokens joins the lexer's tokens of s with single spaces: comments dropped, keywords
// and unquoted identifiers folded to lower case (as the server folds them), literals, quoted
// identifiers and operators kept verbatim.
func normalizeTokens(s string) (string, error) {
	res, err := pg_query.Scan(s)
	if err != nil {
		return "", fmt.Errorf("scanning: %w", err)
	}
	parts := make([]string, 0, len(res.Tokens))
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_SQL_COMMENT || t.Token == pg_query.Token_C_COMMENT {
			continue
		}
		if t.Start < 0 || t.End > int32(len(s)) || t.Start > t.End {
			return "", fmt.Errorf("token out of range")
		}
		text := s[t.Start:t.End]
		if t.KeywordKind != pg_query.KeywordKind_NO_KEYWORD ||
			(t.Token == pg_query.Token_IDENT && !strings.HasPrefix(text, `"`) && !strings.HasPrefix(strings.ToUpper(text), `U&"`)) {
			text = strings.ToLower(text)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " "), nil
}

// NormalizeBody is [NormalizeFunctionBody] with the body's parts as plain strings: the shape of
// introspect's BodyNormalizer, which ledgercheck's install step hands to the catalog reader.
func NormalizeBody(language, arguments, result, body string) (norm, method string, err error) {
	return NormalizeFunctionBody(FunctionBody{Language: language, Arguments: arguments, Result: result, Body: body})
}
