package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// bodiesCase is the sidecar whose four functions install and fail on their first call (a
// misspelt column, a missing table, 'x' added to an integer, a trigger function stamping a column
// its table lacks), and is otherwise clean: lint alone reports nothing.
const bodiesCase = "../../testdata/bodies/body-cannot-run/input.sql"

// lintInstall runs `lint -q --install` with args and returns the exit code and stdout.
func lintInstall(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(binary(t), append([]string{"lint", "-q", "--install"}, args...)...).Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatal(err)
	return 0, ""
}

// TestBodiesAtTheirTokenInEveryFormat: what plpgsql_check finds in an installed body is reported
// at its token, file:line:col, in every format: text, json, SARIF's region and GitHub's
// annotation.
func TestBodiesAtTheirTokenInEveryFormat(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path, err := filepath.Abs(bodiesCase)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	read := func(format string) string {
		b, err := os.ReadFile(filepath.Join(dir, format))
		if err != nil {
			t.Fatalf("no %s report: %v", format, err)
		}
		return string(b)
	}
	code, out := lintInstall(t, "--format", "text", "--output", "json="+filepath.Join(dir, "json"),
		"--output", "sarif="+filepath.Join(dir, "sarif"), "--output", "github="+filepath.Join(dir, "github"), path)
	if code != 1 ||
		!strings.Contains(out, path+":25:10: error: function public.lc_note_body(bigint): column n.bdy does not exist [body-cannot-run]") ||
		!strings.Contains(out, path+":39:37: error: function public.lc_note_count(): relation \"public.lc_note\" does not exist [body-cannot-run]") ||
		!strings.Contains(out, path+":53:24: error: function public.lc_words_with_title(integer): invalid input syntax for type integer: \"x\" [body-cannot-run]") ||
		!strings.Contains(out, path+":65:3: error: function public.lc_notes_touch(): record \"new\" has no field \"updated_at\" [body-cannot-run]") {
		t.Errorf("text: exit %d, want 1 and the four broken bodies at their tokens:\n%s", code, out)
	}
	var rep struct {
		Phases []struct {
			Findings []struct {
				Rule     string
				Position struct{ Line, Col int }
			}
		}
	}
	if err := json.Unmarshal([]byte(read("json")), &rep); err != nil || len(rep.Phases) != 1 {
		t.Fatalf("json: %v:\n%s", err, read("json"))
	}
	var at []string
	for _, f := range rep.Phases[0].Findings {
		at = append(at, f.Rule+"@"+strconv.Itoa(f.Position.Line)+":"+strconv.Itoa(f.Position.Col))
	}
	if strings.Join(at, " ") != "body-cannot-run@25:10 body-cannot-run@39:37 body-cannot-run@53:24 body-cannot-run@65:3" {
		t.Errorf("json positions %v", at)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(read("sarif")), &sarif); err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 4 {
		t.Fatalf("sarif: %v:\n%s", err, read("sarif"))
	}
	if r := sarif.Runs[0].Results[0]; r.RuleID != "body-cannot-run" || r.Locations[0].PhysicalLocation.Region.StartLine != 25 || r.Locations[0].PhysicalLocation.Region.StartColumn != 10 {
		t.Errorf("sarif: the first result is %+v, want body-cannot-run at line 25 column 10", r)
	}
	if gh := read("github"); !strings.Contains(gh, "::error file=testdata/bodies/body-cannot-run/input.sql,line=25,col=10,title=") ||
		!strings.Contains(gh, "body-cannot-run::function public.lc_note_body(bigint): column n.bdy does not exist") {
		t.Errorf("github: no annotation at line 25, col 10:\n%s", gh)
	}
}

// TestBodiesWithoutPlpgsqlCheckOnDSN: a --dsn server that does not offer plpgsql_check (a
// PostgreSQL installation like the tests' own, minus its files) gets the bodies phase's note
// that the PL/pgSQL bodies were not checked, and the exit code the file had before the phase
// existed (0: the file is otherwise clean); the same file on a --dsn server that has it fails.
func TestBodiesWithoutPlpgsqlCheckOnDSN(t *testing.T) {
	scratchtest.NeedPostgres(t)
	path, err := filepath.Abs(bodiesCase)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := scratchtest.StartDSNServer(scratchtest.DSNServerOptions{PGBin: installationWithout(t, "plpgsql_check"), Preload: "ledgercheck_guard"})
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	code, out := lintInstall(t, "--dsn", srv.DSN, "--format", "json", path)
	var rep struct {
		Phases []struct {
			Findings []struct{ Rule string }
			Notes    []string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Phases) != 1 || len(rep.Phases[0].Findings) != 0 {
		t.Fatalf("without plpgsql_check: exit %d (%v), want 0 and no finding:\n%s", code, err, out)
	}
	if notes := strings.Join(rep.Phases[0].Notes, "\n"); !strings.Contains(notes, "the PL/pgSQL bodies were not checked: the server does not offer plpgsql_check") {
		t.Errorf("without plpgsql_check: no note saying the bodies were not checked:\n%s", notes)
	}
	with := scratchtest.SharedDSNServer(t)
	if code, out := lintInstall(t, "--dsn", with.DSN, path); code != 1 || strings.Count(out, "[body-cannot-run]") != 4 {
		t.Errorf("with plpgsql_check: exit %d, want 1 and four body-cannot-run:\n%s", code, out)
	}
}

// installationWithout returns the bin directory of a copy of the tests' PostgreSQL installation
// whose extension directory lacks the extension ext: postgres and initdb copied (PostgreSQL finds
// its share and library directories relative to its own binary), the library directories
// linked, the share directory a directory of links but for ext's files.
func installationWithout(t *testing.T, ext string) string {
	t.Helper()
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	config := func(opt string) string {
		out, err := exec.Command(filepath.Join(bin, "pg_config"), opt).Output()
		if err != nil {
			t.Fatalf("pg_config %s: %v", opt, err)
		}
		return strings.TrimSpace(string(out))
	}
	share, pkglib := config("--sharedir"), config("--pkglibdir")
	root, err := os.MkdirTemp("", "lc-pg-without-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(root+bin, 0o755))
	for _, name := range []string{"postgres", "initdb"} {
		b, err := os.ReadFile(filepath.Join(bin, name))
		must(err)
		must(os.WriteFile(filepath.Join(root+bin, name), b, 0o755))
	}
	// The libraries next to bin (a relocatable build's run path, $ORIGIN/../lib) and the modules.
	for _, dir := range []string{filepath.Join(filepath.Dir(bin), "lib"), pkglib} {
		if _, err := os.Lstat(root + dir); err == nil {
			continue // inside a directory linked already
		}
		if _, err := os.Stat(dir); err == nil {
			must(os.MkdirAll(filepath.Dir(root+dir), 0o755))
			must(os.Symlink(dir, root+dir))
		}
	}
	must(os.MkdirAll(root+share+"/extension", 0o755))
	entries, err := os.ReadDir(share)
	must(err)
	for _, e := range entries {
		if e.Name() != "extension" {
			must(os.Symlink(filepath.Join(share, e.Name()), filepath.Join(root+share, e.Name())))
		}
	}
	exts, err := os.ReadDir(filepath.Join(share, "extension"))
	must(err)
	for _, e := range exts {
		if e.Name() != ext+".control" && !strings.HasPrefix(e.Name(), ext+"--") {
			must(os.Symlink(filepath.Join(share, "extension", e.Name()), filepath.Join(root+share, "extension", e.Name())))
		}
	}
	for d := root + bin; ; d = filepath.Dir(d) { // readable by the server's user
		must(os.Chmod(d, 0o755))
		if d == root {
			break
		}
	}
	for d := root + share; d != root; d = filepath.Dir(d) {
		must(os.Chmod(d, 0o755))
	}
	return root + bin
}
