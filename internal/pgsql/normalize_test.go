package pgsql

import (
	"strings"
	"testing"
)

const plBody = `
DECLARE
  v_fingerprint text;
  v_n numeric(3,2) := 0.50;
BEGIN
  v_fingerprint := encode(sha256(convert_to(lower(p_content), 'UTF8')), 'hex');
  NEW.updated_at := now();
  INSERT INTO public.thoughts AS t (content) VALUES (p_content)
  ON CONFLICT DO NOTHING;
  IF v_n > 0.25 THEN
    RAISE NOTICE 'fp %', v_fingerprint;
  END IF;
  PERFORM (SELECT e.embedding::extensions.vector(1536) FROM public.thoughts e LIMIT 1);
  RETURN NEW;
END;
`

const sqlBody = `
  SELECT t.id, 1 - (t.embedding OPERATOR(extensions.<=>) q) AS similarity
  FROM public.thoughts AS t
  WHERE t.content <> 'a  b'
  LIMIT 10
`

func TestNormalizeFunctionBodyCosmeticVsSemantic(t *testing.T) {
	pl := func(body string) FunctionBody {
		return FunctionBody{Language: "plpgsql", Arguments: "p_content text", Result: "trigger", Body: body}
	}
	sq := func(body string) FunctionBody {
		return FunctionBody{Language: "sql", Arguments: "q extensions.vector", Result: "SETOF record", Body: body}
	}
	cases := []struct {
		name     string
		a, b     FunctionBody
		wantSame bool
		method   string
	}{
		{"plpgsql identical", pl(plBody), pl(plBody), true, NormPLpgSQL},
		{"plpgsql reindented", pl(plBody), pl(strings.ReplaceAll(strings.ReplaceAll(plBody, "\n  ", "\n\t\t"), " := ", ":=")), true, NormPLpgSQL},
		{"plpgsql comments added", pl(plBody), pl(strings.Replace(strings.Replace(plBody, "BEGIN\n", "BEGIN -- start\n/* block\n comment */\n", 1), "RETURN NEW;", "RETURN NEW; -- done", 1)), true, NormPLpgSQL},
		{"plpgsql keyword case", pl(plBody), pl(strings.Replace(plBody, "INSERT INTO", "insert into", 1)), true, NormPLpgSQL},
		{"plpgsql literal changed", pl(plBody), pl(strings.Replace(plBody, "'UTF8'", "'LATIN1'", 1)), false, NormPLpgSQL},
		{"plpgsql whitespace inside literal", pl(plBody), pl(strings.Replace(plBody, "'fp %'", "'fp  %'", 1)), false, NormPLpgSQL},
		{"plpgsql operator changed", pl(plBody), pl(strings.Replace(plBody, "v_n > 0.25", "v_n >= 0.25", 1)), false, NormPLpgSQL},
		{"plpgsql number changed", pl(plBody), pl(strings.Replace(plBody, "0.25", "0.26", 1)), false, NormPLpgSQL},
		{"plpgsql typmod in query changed", pl(plBody), pl(strings.Replace(plBody, "vector(1536)", "vector(1024)", 1)), false, NormPLpgSQL},
		{"plpgsql typmod in declaration changed", pl(plBody), pl(strings.Replace(plBody, "numeric(3,2)", "numeric(4,2)", 1)), false, NormPLpgSQL},
		{"plpgsql declaration spacing", pl(plBody), pl(strings.Replace(plBody, "numeric(3,2)", "numeric( 3, 2 )", 1)), true, NormPLpgSQL},
		{"plpgsql assignment target changed", pl(plBody), pl(strings.Replace(plBody, "NEW.updated_at :=", "NEW.created_at :=", 1)), false, NormPLpgSQL},
		{"sql identical", sq(sqlBody), sq(sqlBody), true, NormSQL},
		{"sql reflowed with comments", sq(sqlBody), sq("SELECT t.id, 1-(t.embedding OPERATOR(extensions.<=>) q) AS similarity -- sim\n FROM public.thoughts AS t WHERE t.content <> 'a  b' /* x */ LIMIT 10"), true, NormSQL},
		{"sql literal whitespace", sq(sqlBody), sq(strings.Replace(sqlBody, "'a  b'", "'a b'", 1)), false, NormSQL},
		{"sql limit changed", sq(sqlBody), sq(strings.Replace(sqlBody, "LIMIT 10", "LIMIT 11", 1)), false, NormSQL},
		{"sql operator changed", sq(sqlBody), sq(strings.Replace(sqlBody, "1 - (", "1 + (", 1)), false, NormSQL},
		{"sql cast typmod changed", sq("SELECT x::extensions.vector(1536)"), sq("SELECT x::extensions.vector(1024)"), false, NormSQL},
		{"sql quoted identifier case", sq(`SELECT "Id" FROM t`), sq(`SELECT "id" FROM t`), false, NormSQL},
		{"sql unquoted identifier case", sq(`SELECT Id FROM T`), sq(`select id from t`), true, NormSQL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			na, ma, err := NormalizeFunctionBody(tc.a)
			if err != nil {
				t.Fatalf("a: %v", err)
			}
			nb, mb, err := NormalizeFunctionBody(tc.b)
			if err != nil {
				t.Fatalf("b: %v", err)
			}
			if ma != tc.method || mb != tc.method {
				t.Errorf("methods %s, %s; want %s", ma, mb, tc.method)
			}
			if (na == nb) != tc.wantSame {
				t.Errorf("same = %v, want %v\na: %s\nb: %s", na == nb, tc.wantSame, na, nb)
			}
		})
	}
}

func TestNormalizeFunctionBodyKeepsNoLineNumbers(t *testing.T) {
	n, _, err := NormalizeFunctionBody(FunctionBody{Language: "plpgsql", Result: "void", Body: "BEGIN\n\n  PERFORM 1;\nEND"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(n, "lineno") || strings.Contains(n, "location") {
		t.Errorf("positions left in %s", n)
	}
}

func TestNormalizeFunctionBodyFallbacks(t *testing.T) {
	// Not valid PL/pgSQL, but lexically fine: tokens, with the reason.
	n, m, err := NormalizeFunctionBody(FunctionBody{Language: "plpgsql", Result: "void", Body: "BEGIN  IF THEN; -- c\nEND"})
	if err == nil || m != NormTokens {
		t.Fatalf("method %s, err %v; want tokens with an error", m, err)
	}
	if n != "begin if then ; end" {
		t.Errorf("tokens = %q", n)
	}
	// Broken SQL whose literal whitespace must survive the fallback.
	n, m, err = NormalizeFunctionBody(FunctionBody{Language: "sql", Body: "SELEC 'a   b'"})
	if err == nil || m != NormTokens || !strings.Contains(n, "'a   b'") {
		t.Errorf("got %q, %s, %v", n, m, err)
	}
	// Unterminated literal: even the lexer fails; the raw text comes back.
	n, m, err = NormalizeFunctionBody(FunctionBody{Language: "sql", Body: "SELECT 'abc"})
	if err == nil || m != NormText || n != "SELECT 'abc" {
		t.Errorf("got %q, %s, %v", n, m, err)
	}
	// Other languages are not touched.
	n, m, err = NormalizeFunctionBody(FunctionBody{Language: "c", Body: "vector_in"})
	if err != nil || m != NormText || n != "vector_in" {
		t.Errorf("got %q, %s, %v", n, m, err)
	}
}

func TestNormalizeFunctionBodyStandardSQLBody(t *testing.T) {
	a := FunctionBody{Language: "sql", Arguments: "a integer", Result: "integer", Body: "RETURN (a + 1)"}
	b := a
	b.Body = "RETURN (a + 2)"
	na, m, err := NormalizeFunctionBody(a)
	if err != nil || m != NormSQL {
		t.Fatalf("%s, %v", m, err)
	}
	nb, _, _ := NormalizeFunctionBody(b)
	if na == nb {
		t.Errorf("RETURN a+1 and a+2 normalize alike: %s", na)
	}
}

func TestNormalizeFunctionBodyParamAssignment(t *testing.T) {
	// An assignment to a parameter parses only when the parameter is declared.
	fb := FunctionBody{Language: "plpgsql", Arguments: "p integer", Result: "integer", Body: "BEGIN p := p + 1; RETURN p; END"}
	if _, m, err := NormalizeFunctionBody(fb); err != nil || m != NormPLpgSQL {
		t.Errorf("%s, %v", m, err)
	}
}

func FuzzNormalizeFunctionBody(f *testing.F) {
	f.Add("plpgsql", plBody)
	f.Add("sql", sqlBody)
	f.Add("plpgsql", "BEGIN $$ END")
	f.Fuzz(func(t *testing.T, lang, body string) {
		_, _, _ = NormalizeFunctionBody(FunctionBody{Language: lang, Result: "void", Body: body})
	})
}
