package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// sessionEnders are statements that end other sessions of the role they run as, each the way a
// migration could: a loop, a filter on the database, every session with the refusals
// swallowed, the call hidden in EXECUTE, a SECURITY DEFINER function the file defines and calls.
// Each is the statements before (setup) and the statement that ends the sessions (ends).
var sessionEnders = map[string]struct{ setup, ends string }{
	"loop": {ends: `DO $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  WHILE clock_timestamp() < t0 + interval '0.4 seconds' LOOP
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid();
    PERFORM pg_sleep(0.02);
  END LOOP;
END $$;`},
	"database": {ends: `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid() AND pg_has_role(usesysid, 'MEMBER');`},
	"swallowed": {ends: `DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() LOOP
    BEGIN
      PERFORM pg_terminate_backend(r.pid);
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
  END LOOP;
END $$;`},
	"hidden": {ends: `DO $$
BEGIN
  EXECUTE format('SELECT %s(pid) FROM pg_stat_activity WHERE usename = %L AND pid <> pg_backend_pid()', 'pg_terminate_' || 'backend', current_user);
END $$;`},
	"definer": {`CREATE OR REPLACE FUNCTION public.ledger_reset_clients() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog
AS $f$ SELECT count(pg_terminate_backend(pid))::integer FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid() $f$;
REVOKE ALL ON FUNCTION public.ledger_reset_clients() FROM PUBLIC, anon, authenticated;
`, `SELECT public.ledger_reset_clients();`},
}

// TestEndingSessionsIsTheFilesFinding: ports that end other sessions of postgres, checked in one
// run beside the shipped artifact and the shipped port, which run at the same time. Each such
// port fails at the statement that ended a session (its install, or its rerun when it ends
// sessions only over an existing install), and nothing else fails: no port can end a session of
// another variant or of ledgercheck's, whatever it targets.
func TestEndingSessionsIsTheFilesFinding(t *testing.T) {
	scratchtest.NeedPostgres(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	port, err := os.ReadFile(filepath.Join(root, "migrations/ports/decision_ledger_1024.sql"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(port)
	notify := strings.Index(src, "\nNOTIFY pgrst") + 1
	notifyLine := strings.Count(src[:notify], "\n") + 1
	dir := t.TempDir()
	wants := map[string]int{} // port -> line of the finding
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "version: 2\nartifact: {file: %q, dim: 1536}\nprerequisites: {openbrain: true}\nrerun: {times: 2}\nports:\n", filepath.Join(root, "migrations/decision_ledger.sql"))
	addPort := func(name, body string) {
		file := filepath.Join(dir, name+".sql")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cfg, "  - {name: %s, file: %q, dim: 1024, allowlist: %q}\n", name, file, filepath.Join(root, "allowlist.yaml"))
	}
	for name, e := range sessionEnders {
		addPort(name, src[:notify]+e.setup+e.ends+"\n\n"+src[notify:])
		wants[name] = notifyLine + strings.Count(e.setup, "\n")
	}
	// Over an install of its own only: the first run of the file ends nothing.
	addPort("rerun", `DO $$
BEGIN
  IF to_regclass('public.agent_decision_ledger') IS NOT NULL THEN
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid();
  END IF;
END $$;
`+src)
	wants["rerun"] = 1
	addPort("shipped", src)
	config := filepath.Join(dir, "ledgercheck.yaml")
	if err := os.WriteFile(config, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errs := run(t, nil, "check", "-q", "--format", "json", "--config", config, "--allow-outside-repo")
	var rep struct {
		Phases []struct {
			Name, Status string
			Findings     []struct {
				Rule, Message string
				Position      *struct{ Line int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil {
		t.Fatalf("exit %d (%v), want 1 with a report; stderr %q", code, err, errs)
	}
	found := map[string]bool{}
	for _, p := range rep.Phases {
		phase, variant, _ := strings.Cut(p.Name, " ")
		for _, f := range p.Findings {
			if !strings.Contains(f.Message, scratch.SessionEnding) {
				if strings.HasPrefix(p.Name, "lint") || strings.HasPrefix(p.Name, "locks") {
					continue // what the text and the locks say of the files, not in question here
				}
				t.Errorf("%s: unexpected finding %s: %s", p.Name, f.Rule, f.Message)
				continue
			}
			line, ok := wants[variant]
			wantPhase := "install"
			if variant == "rerun" {
				wantPhase = "rerun"
			}
			switch {
			case !ok:
				t.Errorf("%s: %s is blamed for ending a session: %s", p.Name, variant, f.Message)
			case phase != wantPhase || f.Position == nil || f.Position.Line != line:
				t.Errorf("%s: the finding is in %s at %v, want %s at line %d", variant, phase, f.Position, wantPhase, line)
			default:
				found[variant] = true
			}
		}
	}
	for variant := range wants {
		if !found[variant] {
			t.Errorf("port %s ended a session of postgres, and no finding says so", variant)
		}
	}
}

// TestEndingLongConnectedSessionsIsTheFilesFinding: a port that, over an install of its own,
// ends the sessions of postgres connected longer than its statement has run (the clients a
// project keeps connected: a pooler, the dashboard) is blamed at that statement on its rerun: a
// database's scripts share their sentinel, which stands from its first script (the install) on.
// Checked with the shipped artifact alone beside it, so that its database's sentinel is kept
// whatever else the run holds (at most 8 are).
func TestEndingLongConnectedSessionsIsTheFilesFinding(t *testing.T) {
	scratchtest.NeedPostgres(t)
	port, err := os.ReadFile("../../migrations/ports/decision_ledger_1024.sql")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "connected.sql")
	if err := os.WriteFile(file, []byte(`DO $$
BEGIN
  IF to_regclass('public.agent_decision_ledger') IS NOT NULL THEN
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start < now() - interval '50 milliseconds';
  END IF;
END $$;
`+string(port)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, nil, "check", "-q", "--format", "json", "--port", file, "--port-dim", "1024", "--allow-outside-repo")
	var rep struct {
		Phases []struct {
			Name     string
			Findings []struct {
				Message  string
				Position *struct{ Line int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil {
		t.Fatalf("exit %d (%v), want 1 with a report; stderr %q", code, err, errs)
	}
	var blamed []string
	for _, p := range rep.Phases {
		for _, f := range p.Findings {
			if strings.Contains(f.Message, scratch.SessionEnding) {
				blamed = append(blamed, fmt.Sprintf("%s at %v", p.Name, f.Position))
				if p.Name != "rerun connected" || f.Position == nil || f.Position.Line != 1 {
					t.Errorf("%s: the session-ending finding is at %v, want the port's rerun at line 1", p.Name, f.Position)
				}
			}
		}
	}
	if len(blamed) != 1 {
		t.Errorf("session-ending findings: %v; want one, on the port's rerun", blamed)
	}
}
