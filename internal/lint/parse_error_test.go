package lint

import (
	"strings"
	"testing"
)

// TestParseErrorSaysWhoRejects: a syntax error says PostgreSQL would reject the file when the
// gate runs on a version whose grammar the parser has (15, the default), and, on 17, that the
// parser (PostgreSQL 16's grammar) rejects it, which the server may not: JSON_TABLE is 17's.
func TestParseErrorSaysWhoRejects(t *testing.T) {
	const src = "SELECT * FROM JSON_TABLE('[1]'::jsonb, '$[*]' COLUMNS (a int PATH '$'));\nNOTIFY pgrst, 'reload schema';\n"
	for _, tc := range []struct {
		postgres int
		want     string
	}{
		{0, `syntax error at or near "COLUMNS" (PostgreSQL would reject the file)`},
		{15, `syntax error at or near "COLUMNS" (PostgreSQL would reject the file)`},
		{17, `syntax error at or near "COLUMNS" (ledgercheck's parser, PostgreSQL 16's grammar, rejects the file; PostgreSQL 17 may take it if this is syntax new in 17`},
	} {
		fs := Source("m.sql", []byte(src), Config{}, Options{Postgres: tc.postgres})
		if len(fs) != 1 || fs[0].Rule != ParseError || !strings.HasPrefix(fs[0].Message, tc.want) {
			t.Errorf("postgres %d: %v, want one parse-error saying %q", tc.postgres, fs, tc.want)
		}
	}
	// In a body too.
	body := "CREATE FUNCTION public.f() RETURNS void LANGUAGE plpgsql SET search_path = '' AS $$ BEGIN PERFORM * FROM JSON_TABLE('[1]'::jsonb, '$[*]' COLUMNS (a int PATH '$')); END $$;\nNOTIFY pgrst, 'reload schema';\n"
	n := 0
	for _, f := range Source("m.sql", []byte(body), Config{}, Options{Postgres: 17}) {
		if f.Rule == ParseError {
			n++
			if !strings.Contains(f.Message, "PostgreSQL 16's grammar") {
				t.Errorf("in a body on 17: %q, want the parser named", f.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("in a body on 17: %d parse-error findings, want 1", n)
	}
}
