package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// init for a Supabase project's own migration: a file without a vector column needs no --dim
// (the configuration has no dim:, and loads at the prerequisites' dimension); one with a vector
// type asks for it, naming where the type is; the Open Brain prerequisites are on only where
// the migration uses an Open Brain object, and the configuration says which ones (or that it
// uses none).
func TestInitDefaultsForAnySupabaseProject(t *testing.T) {
	t.Chdir(t.TempDir())
	write(t, "notes.sql", `-- notes: a table of the project's own, nothing of Open Brain
create table if not exists public.notes (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid() references auth.users (id),
  body text not null
);
alter table public.notes enable row level security;
`)
	write(t, "pins.sql", `-- pins: marks thoughts to keep in context
create table if not exists public.thought_pins (
  thought_id uuid primary key references public.thoughts (id) on delete cascade,
  pinned_at timestamptz not null default now()
);
create or replace function public.pinned_matches(q extensions.vector(768))
returns setof uuid language sql stable as $$
  select id from public.match_thoughts(q, 0.5, 10, '{}'::jsonb)
$$;
`)
	code, _, errs := runCLI(t, "init", "--artifact", "notes.sql")
	if code != ExitOK {
		t.Fatalf("init without --dim for a file without a vector column: exit %d, %s", code, errs)
	}
	data, err := os.ReadFile(config.DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Contains(text, "\n  dim:") || !strings.Contains(text, "openbrain: false") || !strings.Contains(text, "# Off: the migration uses no Open Brain object") {
		t.Errorf("the configuration of notes.sql has a dim, or the Open Brain prerequisites without saying why:\n%s", text)
	}
	c, err := config.Load(config.DefaultFile, false)
	if err != nil || c.Artifact.Dim != scratch.DefaultDim || c.Prerequisites.OpenBrain {
		t.Fatalf("it loads as %+v, %v; want dim %d, openbrain false", c, err, scratch.DefaultDim)
	}

	code, _, errs = runCLI(t, "init", "--force", "--artifact", "pins.sql")
	if code != ExitInput || !strings.Contains(errs, "--dim N is required: pins.sql has a vector type (vector(768) at pins.sql:6:") {
		t.Errorf("init without --dim for a file with vector(768): exit %d, %q", code, errs)
	}
	code, _, errs = runCLI(t, "init", "--force", "--artifact", "pins.sql", "--dim", "768")
	if code != ExitOK {
		t.Fatalf("init --dim 768: exit %d, %s", code, errs)
	}
	data, _ = os.ReadFile(config.DefaultFile)
	text = string(data)
	for _, want := range []string{"dim: 768", "openbrain: true", "#   table public.thoughts (pins.sql:3:", "#   function public.match_thoughts (pins.sql:8:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the configuration of pins.sql has no %q:\n%s", want, text)
		}
	}
}
