package migrations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// TestUpsertThoughtDedupsAndMerges: the capture path's upsert_thought dedups by the fingerprint
// of the normalized content (whitespace collapsed, trimmed, lower-cased, SHA-256 hex), keeps the
// first content as written, and merges metadata shallowly with new keys winning; at both
// dimensions.
func TestUpsertThoughtDedupsAndMerges(t *testing.T) {
	for _, dim := range []int{1536, 1024} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			conn := scratchtest.Connect(t, scratchtest.NewDatabase(t, dim))
			ctx := context.Background()
			var id1, fp1, id2, fp2 string
			if err := conn.QueryRow(ctx, `SELECT r->>'id', r->>'fingerprint' FROM public.upsert_thought('Hello  World', '{"metadata": {"a": 1, "k": "old"}}') AS r`).Scan(&id1, &fp1); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, `SELECT r->>'id', r->>'fingerprint' FROM public.upsert_thought(E' hello\tworld ', '{"metadata": {"b": 2, "k": "new"}, "ignored": true}') AS r`).Scan(&id2, &fp2); err != nil {
				t.Fatal(err)
			}
			const want = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9" // sha256("hello world")
			if id1 != id2 || fp1 != want || fp2 != want {
				t.Errorf("ids %s / %s, fingerprints %s / %s: want one row with fingerprint %s", id1, id2, fp1, fp2, want)
			}
			var n int
			var content, meta string
			if err := conn.QueryRow(ctx, `SELECT count(*) OVER (), content, metadata::text FROM public.thoughts`).Scan(&n, &content, &meta); err != nil {
				t.Fatal(err)
			}
			if n != 1 || content != "Hello  World" || meta != `{"a": 1, "b": 2, "k": "new"}` {
				t.Errorf("%d rows, content %q, metadata %s: want one row, the first content as written, merged metadata", n, content, meta)
			}
			// A different text is a different thought.
			var id3 string
			if err := conn.QueryRow(ctx, `SELECT public.upsert_thought('hello world!') ->> 'id'`).Scan(&id3); err != nil || id3 == id1 {
				t.Errorf("a different content got id %s (%v), want a new row", id3, err)
			}
		})
	}
}

// TestMatchThoughts: similarity is 1 - cosine distance, only rows strictly above the threshold
// and containing the filter come back, nearest first, and rows without an embedding never do.
func TestMatchThoughts(t *testing.T) {
	const dim = 1024
	conn := scratchtest.Connect(t, scratchtest.NewDatabase(t, dim))
	ctx := context.Background()
	vec := func(i int) string { // a unit vector along axis i
		return fmt.Sprintf("(array_fill(0::real, ARRAY[%d]) || ARRAY[1::real] || array_fill(0::real, ARRAY[%d]))::vector", i, dim-1-i)
	}
	for _, s := range []string{
		`INSERT INTO public.thoughts (content, metadata, embedding) VALUES ('same', '{"kind": "x"}', ` + vec(0) + `)`,
		`INSERT INTO public.thoughts (content, metadata, embedding) VALUES ('orthogonal', '{"kind": "x"}', ` + vec(1) + `)`,
		`INSERT INTO public.thoughts (content, metadata, embedding) VALUES ('close', '{"kind": "y"}', (array_fill(0::real, ARRAY[0]) || ARRAY[1::real, 1::real] || array_fill(0::real, ARRAY[1022]))::vector)`,
		`INSERT INTO public.thoughts (content, metadata) VALUES ('no embedding', '{"kind": "x"}')`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(ctx, `SELECT content, round(similarity::numeric, 4)::text FROM public.match_thoughts(`+vec(0)+`, 0.5, 10, '{}')`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var c, s string
		if err := rows.Scan(&c, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, c+"="+s)
	}
	if fmt.Sprint(got) != "[same=1.0000 close=0.7071]" {
		t.Errorf("match_thoughts(threshold 0.5) = %v, want [same=1.0000 close=0.7071]", got)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM public.match_thoughts(`+vec(0)+`, 0.5, 10, '{"kind": "x"}')`).Scan(&n); err != nil || n != 1 {
		t.Errorf("with filter kind=x: %d rows (%v), want only 'same'", n, err)
	}
}
