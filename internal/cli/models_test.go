package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The installed audit answers for both kinds of project a sidecar is installed into: views over
// thoughts without security_invoker, granted to nobody, expose nothing on a hosted project and
// everything on a self-hosted one, whose old default privileges grant them to anon and
// authenticated; the finding says where it holds. A project that knows its own model restricts
// the audit to it (lint.privilege_models).
func TestAuditAnswersForBothPrivilegeModels(t *testing.T) {
	scratchtest.NeedPostgres(t)
	t.Chdir(t.TempDir())
	write(t, "views.sql", `-- Dashboard views over the thoughts, for the ops page.
CREATE OR REPLACE VIEW public.recent_thoughts AS
  SELECT t.id, t.content, t.created_at FROM public.thoughts t ORDER BY t.created_at DESC LIMIT 50;
CREATE OR REPLACE VIEW public.thought_sources AS
  SELECT t.metadata ->> 'source' AS source, count(*) AS n FROM public.thoughts t GROUP BY 1;
GRANT SELECT ON public.recent_thoughts, public.thought_sources TO service_role;
NOTIFY pgrst, 'reload schema';
`)
	if code, _, errs := runCLI(t, "init", "-q", "--artifact", "views.sql", "--dim", "1536"); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "lint", "-q", "--install", "views.sql")
	for _, view := range []string{"recent_thoughts", "thought_sources"} {
		want := "error: anon and authenticated can SELECT view public." + view + ", which has no security_invoker and reads with its owner's rights, past row level security; CREATE VIEW ... WITH (security_invoker = true) (only on self-hosted projects, with the old default privileges) [security-definer-view]"
		if code != ExitFindings || !strings.Contains(out, want) {
			t.Errorf("a definer view under the old default privileges: exit %d, want %q in\n%s%s", code, want, out, errs)
		}
	}

	b, err := os.ReadFile(config.DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	if !strings.Contains(conf, "\nlint:\n") {
		t.Fatalf("init's configuration has no lint section:\n%s", conf)
	}
	write(t, config.DefaultFile, strings.Replace(conf, "\nlint:\n", "\nlint:\n  privilege_models: [new-defaults]\n", 1))
	if code, out, errs := runCLI(t, "lint", "-q", "--install", "views.sql"); code != ExitOK {
		t.Errorf("restricted to a hosted project's privileges: exit %d\n%s%s", code, out, errs)
	}
	write(t, config.DefaultFile, strings.Replace(conf, "\nlint:\n", "\nlint:\n  privilege_models: [hosted]\n", 1))
	if code, _, errs := runCLI(t, "lint", "-q", "--install", "views.sql"); code != ExitInput || !strings.Contains(errs, `privilege_models: unknown model "hosted": want new-defaults or old-defaults`) {
		t.Errorf("an unknown model: exit %d, stderr %q", code, errs)
	}
}
