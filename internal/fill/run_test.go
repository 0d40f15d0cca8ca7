package fill_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fill"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// One scratch cluster for the package's tests.
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// sidecar is in the style of an Open Brain sidecar: an enum, a unique slug with a pattern CHECK,
// a CHECK'd numeric, a table hung off thoughts and topics whose status CHECK has a label with a
// quote and a backslash, a serial parent with a child that has an enum column (its key read
// from the parent's rows), a table of composite, range, domain, enum array and other built-in
// types, and a CHECK no generated value meets. The install role reads
// strings without standard_conforming_strings, as a file may set it for its role.
const sidecar = `
CREATE TYPE public.topic_kind AS ENUM ('person', 'project', 'place');
CREATE TABLE public.topics (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]+$'),
  kind public.topic_kind NOT NULL,
  weight numeric(3,2) NOT NULL CHECK (weight >= 0 AND weight <= 1),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.thought_topics (
  thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  topic_id uuid NOT NULL REFERENCES public.topics (id),
  status text NOT NULL CHECK (status IN ('suggested', 'it''s \ confirmed')),
  embedding vector(1536),
  PRIMARY KEY (thought_id, topic_id)
);
CREATE TABLE public.items (id bigserial PRIMARY KEY, label text NOT NULL);
CREATE TABLE public.item_kinds (
  item_id bigint NOT NULL REFERENCES public.items (id),
  kind public.topic_kind NOT NULL,
  UNIQUE (item_id, kind)
);
CREATE TYPE public.pair_t AS (a text, b int);
CREATE DOMAIN public.positive AS int CHECK (VALUE > 0);
CREATE TYPE public.kind_range AS RANGE (subtype = int4);
CREATE TABLE public.typed (
  p public.pair_t NOT NULL, r int4range NOT NULL, kr public.kind_range NOT NULL,
  d public.positive NOT NULL, kinds public.topic_kind[] NOT NULL, doc jsonb NOT NULL,
  at timestamptz NOT NULL, day date NOT NULL, b bytea NOT NULL, ts tsvector NOT NULL, ok boolean NOT NULL
);
CREATE TABLE public.impossible (code text NOT NULL CHECK (length(code) > 1000));
CREATE TABLE public.enrolled (thought_id uuid PRIMARY KEY);
CREATE FUNCTION public.enroll() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.enrolled VALUES (NEW.thought_id) ON CONFLICT DO NOTHING;
  RETURN NEW;
END $$;
CREATE TRIGGER thought_topics_enroll AFTER INSERT ON public.thought_topics
  FOR EACH ROW EXECUTE FUNCTION public.enroll();
`

// Run fills the sidecar's tables (and thoughts, which one references) as the install role:
// every CHECK that a candidate meets holds, foreign keys find their rows, triggers fire, and a
// table no value fits is skipped with the server's reason.
func TestRunFillsASidecar(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	before, err := install.Snapshot(ctx, db, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scratchtest.Exec(t, db, "sidecar.sql", sidecar)
	after, err := install.Snapshot(ctx, db, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.Connect(t, db)
	if _, err := conn.Exec(ctx, "SET standard_conforming_strings = off"); err != nil {
		t.Fatal(err)
	}
	res, err := fill.Run(ctx, conn, fill.New(before, after, fill.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"public.thoughts": 4, "public.topics": 4, "public.thought_topics": 4, "public.items": 4, "public.item_kinds": 4, "public.enrolled": 4, "public.typed": 4}
	got := map[string]int{}
	for _, f := range res.Tables {
		got[f.Table] = f.Rows
	}
	for table, n := range want {
		if got[table] != n {
			t.Errorf("%s: %d generated rows, want %d (result %+v)", table, got[table], n, res)
		}
		var count int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&count); err != nil {
			t.Fatal(err)
		}
		if table == "public.enrolled" {
			n = 8 // its own 4 and the trigger's 4
		}
		if count != n {
			t.Errorf("%s holds %d rows, want %d", table, count, n)
		}
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Table != "public.impossible" || !strings.Contains(res.Skipped[0].Reason, "impossible_code_check") {
		t.Errorf("skipped %+v, want public.impossible with its CHECK's violation", res.Skipped)
	}
	if s := res.Summary(); s != "28 generated rows in 7 tables (seed 1)" {
		t.Errorf("summary %q", s)
	}
	var quoted int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM public.thought_topics WHERE status = E'it\'s \\ confirmed'`).Scan(&quoted); err != nil || quoted != 2 {
		t.Errorf("%d thought_topics rows have the label with a quote and a backslash, want 2 (%v)", quoted, err)
	}
	var bad int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM public.thought_topics tt LEFT JOIN public.thoughts t ON t.id = tt.thought_id WHERE t.id IS NULL").Scan(&bad); err != nil || bad != 0 {
		t.Errorf("%d thought_topics rows reference no generated thought (%v)", bad, err)
	}
}

// The access observation's options: Tables fills the tables it names (and what they reference)
// instead of what the install created, Fixed gives owner columns the users' ids row by row, and
// Shared gives same-named columns of two tables the same values, so that a membership table's
// team_id meets the documents' without a foreign key; Row builds one more row with fixed values
// and a referenced row's literals.
func TestFillOptionsForOwnedRows(t *testing.T) {
	ctx := context.Background()
	db := scratchtest.NewDatabase(t, 1536)
	scratchtest.Exec(t, db, "teams.sql", `
CREATE TABLE public.members (team_id uuid NOT NULL, user_id text NOT NULL, PRIMARY KEY (team_id, user_id));
CREATE TABLE public.documents (id bigint PRIMARY KEY, team_id uuid NOT NULL, title text NOT NULL);
CREATE TABLE public.untouched (id int);`)
	after, err := install.Snapshot(ctx, db, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn := scratchtest.Connect(t, db)
	owners := []string{"'a'", "'b'", "'c'"}
	p := fill.New(nil, after, fill.Options{Rows: 3, Tables: []string{"public.members", "public.documents"},
		Fixed: map[string]map[string][]string{"public.members": {"user_id": owners}}, Shared: true})
	res, err := fill.Run(ctx, conn, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Summary(); got != "6 generated rows in 2 tables (seed 1)" {
		t.Errorf("summary %q (%+v)", got, res)
	}
	var users string
	if err := conn.QueryRow(ctx, `SELECT string_agg(user_id, ',' ORDER BY user_id) FROM public.members`).Scan(&users); err != nil || users != "a,b,c" {
		t.Errorf("members' user_id %q, want a,b,c (%v)", users, err)
	}
	var meet int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM public.members m JOIN public.documents d USING (team_id)`).Scan(&meet); err != nil || meet != 3 {
		t.Errorf("%d members meet a document on team_id, want 3 (%v)", meet, err)
	}
	row := p.Table("public.members").Row(1, 7, map[string]string{"user_id": "'z'"}, nil)
	if _, err := conn.Exec(ctx, row); err != nil {
		t.Fatalf("%s: %v", row, err)
	}
	if p.Table("public.untouched") != nil {
		t.Error("a table Tables does not name was planned")
	}
}
