package cli

import (
	"os"
	"strings"
	"testing"
)

// What a prerequisite file creates exists before the sidecar for lint's ownership rules, with no
// lint.existing entry typed by hand: re-creating its function is changing somebody else's
// object, and a grant on its table is too.
func TestPrerequisitesAreExistingObjects(t *testing.T) {
	t.Chdir(t.TempDir())
	write(t, "deps/tags.sql", `CREATE TABLE IF NOT EXISTS public.tags (id bigint PRIMARY KEY, name text NOT NULL);
CREATE OR REPLACE FUNCTION public.tag_label(p_id bigint) RETURNS text
LANGUAGE sql STABLE SET search_path = public AS $$ SELECT name FROM public.tags WHERE id = p_id $$;
`)
	write(t, "notes.sql", `CREATE OR REPLACE FUNCTION public.tag_label(p_id bigint) RETURNS text
LANGUAGE sql STABLE SET search_path = public AS $$ SELECT upper(name) FROM public.tags WHERE id = p_id $$;
REVOKE EXECUTE ON FUNCTION public.tag_label(bigint) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.tag_label(bigint) TO service_role;
NOTIFY pgrst, 'reload schema';
`)
	if code, _, errs := runCLI(t, "init", "-q", "--artifact", "notes.sql", "--dim", "1536"); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "lint", "notes.sql")
	if code != ExitOK || strings.Contains(out, "modifies-existing-object") {
		t.Fatalf("without prerequisites, the function is the file's own: exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile("ledgercheck.yaml")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	if !strings.Contains(conf, "  files: []") {
		t.Fatalf("init's configuration has no empty prerequisites.files:\n%s", conf)
	}
	write(t, "ledgercheck.yaml", strings.Replace(conf, "  files: []", "  files: [deps/tags.sql]", 1))
	code, out, errs = runCLI(t, "lint", "notes.sql")
	if code != ExitFindings || !strings.Contains(out, "notes.sql:1:1: error: CREATE FUNCTION re-creates function public.tag_label(bigint), which exists before this file runs") {
		t.Errorf("a prerequisite's function re-created: exit %d\n%s%s", code, out, errs)
	}
}
