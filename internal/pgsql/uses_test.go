package pgsql

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// useString renders a use for the test: "kind name [table|candidates] /args @line context".
func useString(u Use) string {
	s := string(u.Kind) + " " + u.Name.String()
	switch {
	case u.Table != (Name{}):
		s += " of " + u.Table.String()
	case u.Kind == KindColumn:
		s += fmt.Sprint(" of one of ", u.Tables)
	}
	if u.Kind == KindFunction {
		s += fmt.Sprintf("/%d", u.Args)
	}
	return fmt.Sprintf("%s @%d %s", s, u.Pos.Line, u.Context)
}

// ParseUses reads what each statement names that it does not create: relations (CTEs apart),
// columns with the relation their qualifier or the statement says (an alias resolved, even when
// its FROM item comes later), function calls with their number of arguments, types; in views,
// PL/pgSQL and SQL function bodies alike, each at its line.
func TestParseUsesReadsRelationsColumnsFunctionsAndTypes(t *testing.T) {
	src := `CREATE VIEW public.readwise_view AS
  SELECT t.id, t.source_type FROM public.thoughts t;
CREATE FUNCTION public.books_of(p_kind public.book_kind) RETURNS SETOF uuid LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY WITH w AS (SELECT 1) SELECT id FROM thoughts WHERE source_type = 'readwise';
  PERFORM public.tag_thought(NULL::uuid, 'book');
END $$;
CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.source_type := coalesce(NEW.source_type, 'unknown');
  RETURN NEW;
END $$;
CREATE FUNCTION public.count_books() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM public.books b JOIN thoughts USING (id)';
INSERT INTO public.thoughts (content, source_type) VALUES ('x', 'y');
UPDATE thoughts SET importance = 3 WHERE id IS NULL;
CREATE INDEX IF NOT EXISTS thoughts_source_idx ON public.thoughts (source_type);
`
	_, uses, err := ParseUses("readwise.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range uses {
		got = append(got, useString(u))
	}
	for _, want := range []string{
		"table public.readwise_view @1 at top level",
		"table public.thoughts @2 at top level",
		"column source_type of public.thoughts @2 at top level",
		"type public.book_kind @3 at top level",
		"table thoughts @5 in a function body",
		"column source_type of thoughts @5 in a function body",
		"function public.tag_thought/2 @6 in a function body",
		"column source_type of one of [] @10 in a function body",
		"table public.books @13 in a function body",
		"table public.thoughts @14 at top level",
		"column source_type of public.thoughts @14 at top level",
		"column importance of thoughts @15 at top level",
		"column source_type of public.thoughts @16 at top level",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no use %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, u := range got {
		if strings.HasPrefix(u, "table w ") {
			t.Errorf("use %q: a CTE is no relation", u)
		}
	}
}
