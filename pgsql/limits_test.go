package pgsql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"ledgercheck/internal/input"
)

func TestParseRejectsFilesOverTheLimit(t *testing.T) {
	src := strings.Repeat("-- comment\n", int(input.Migration.Limit)/11+1)
	_, err := Parse("big.sql", []byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 1 || !strings.Contains(se.Msg, "at most 4 MiB") {
		t.Fatalf("Parse of %d bytes = %v, want a syntax error at 1:1 naming the limit", len(src), err)
	}
}

// Each meta-command costs a parse up to it; a large file full of them must not hold the gate
// (without the budget, this file takes about half a minute).
func TestManyMetaCommandsInALargeFileAreBounded(t *testing.T) {
	var b strings.Builder
	stmt := strings.Repeat("INSERT INTO public.t (content) VALUES ('x');\n", 500)
	for range 150 {
		b.WriteString(stmt)
		b.WriteString("\\set x 1\n")
	}
	t0 := time.Now()
	_, err := Parse("meta.sql", []byte(b.String()))
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Parse of %d bytes with 150 meta-commands took %s", b.Len(), d)
	}
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "too many psql meta-commands") {
		t.Errorf("err = %v, want the too-many-meta-commands syntax error", err)
	}
}
