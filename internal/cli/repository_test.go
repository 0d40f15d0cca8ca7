package cli

import (
	"bytes"
	"context"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/golden"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/report/reporttest"
	"github.com/ledgercheck/ledgercheck/internal/repository"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The test repository of sidecars, from this package's directory.
const testRepository = "../../testdata/repository"

// repositoryCheck runs check in-process over the configuration of version 3 in the working
// directory, with args, on the package's scratch server, and returns its report.
func repositoryCheck(t *testing.T, args ...string) *report.Report {
	t.Helper()
	return repositoryCheckWith(t, false, args...)
}

// repositoryCheckWith is repositoryCheck, reading outside the repository when allowOutside.
func repositoryCheckWith(t *testing.T, allowOutside bool, args ...string) *report.Report {
	t.Helper()
	srv := scratchtest.Server(t)
	g := &globals{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, quiet: true, allowOutside: allowOutside}
	cmd, f := buildCheckCmd(g)
	cmd.SetContext(context.Background())
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.loadConfig(cmd, g)
	if err != nil {
		t.Fatal(err)
	}
	req, err := f.repositoryRequest(cmd, g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	req.Server = srv
	rep, err := repository.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// textOf renders rep as check's text format, durations and servers left out.
func textOf(t *testing.T, rep *report.Report) []byte {
	t.Helper()
	return []byte(allFormats(t, reporttest.Stable(rep))["text"])
}

// check over a repository of twelve sidecars checks every one, each over the sidecars it needs
// and under its own name in every format, with one verdict.
func TestRepositoryCheck(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(testRepository, "ledgercheck.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(testRepository)
	rep := repositoryCheck(t)
	golden.Check(t, filepath.Join(filepath.Dir(abs), "check.golden"), textOf(t, rep))
	// The sidecars whose foreign keys reference a table they need lock it (locks phase): warnings.
	if len(rep.Phases) != 12*7 || rep.Status() != report.StatusWarn || rep.Failed() {
		t.Errorf("%d phases, %s: want 7 phases for each of 12 sidecars, warnings only", len(rep.Phases), rep.Status())
	}
	// The formats that list phases (sarif and github list findings) name each sidecar's.
	formats := allFormats(t, rep)
	for _, format := range []string{"text", "json", "html"} {
		for _, ph := range rep.Phases {
			if !strings.Contains(formats[format], ph.Name) {
				t.Errorf("%s: no phase %q", format, ph.Name)
			}
		}
	}
}

// check --changed REF on a branch that changed one sidecar checks it and the sidecars that need
// it (and no other), audits its upgrade from its version at the merge base, and reports the
// grant to anon the branch added.
func TestRepositoryCheckChanged(t *testing.T) {
	src, err := filepath.Abs(testRepository)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "check.golden"))
	os.Remove(filepath.Join(dir, "changed.golden"))
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "the repository")
	gitIn(t, dir, "checkout", "-q", "-b", "share-people")
	people := filepath.Join(dir, "schemas/people/schema.sql")
	b, err := os.ReadFile(people)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("NOTIFY pgrst"), []byte("ALTER TABLE public.people ADD COLUMN IF NOT EXISTS avatar_url text;\nGRANT SELECT ON public.people TO anon;\nNOTIFY pgrst"), 1)
	if err := os.WriteFile(people, b, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "commit", "-q", "-am", "people: avatars, readable by anon")
	t.Chdir(dir)

	rep := repositoryCheck(t, "--changed", "main")
	golden.Check(t, filepath.Join(src, "changed.golden"), textOf(t, rep))
	for _, ph := range rep.Phases {
		for _, other := range []string{"thought-tags", "projects", "sources", "daily-digest", "link-cleanup"} {
			if strings.HasSuffix(ph.Name, " "+other) {
				t.Errorf("phase %q: the branch changed nothing %s needs", ph.Name, other)
			}
		}
	}
	text := string(textOf(t, rep))
	for _, want := range []string{"rerun people", "rerun thought-people", "rerun tag-people", "upgrade passed: schemas/people/schema.sql over ", ":schemas/people/schema.sql and 4 generated rows", "GRANT select to anon"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report has no %q:\n%s", want, text)
		}
	}
	for format, out := range allFormats(t, rep) {
		if !strings.Contains(out, "people") {
			t.Errorf("%s: the changed sidecar's finding is not there under its name", format)
		}
	}
	if rep.Status() != report.StatusFail {
		t.Errorf("status %s: the grant to anon is a finding", rep.Status())
	}

	gitIn(t, dir, "checkout", "-q", "main")
	rep = repositoryCheck(t, "--changed", "main")
	if rep.Status() != report.StatusSkip || len(rep.Phases) != 1 || !strings.Contains(rep.Phases[0].Notes[0], "nothing to check") {
		t.Errorf("nothing changed: %s, %+v", rep.Status(), rep.Phases)
	}
}

// gitIn runs git in dir, failing the test on an error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	// Fixed dates and identity: the merge base's id, which the report names, is the same in every run.
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A repository's configuration is check's: the flags that name one variant, the commands that
// compare one port without --sidecar, an unknown sidecar, --sidecar with --changed, and
// --changed with a ref git does not know are input errors (exit 2), each one line.
func TestRepositoryInputErrors(t *testing.T) {
	cfg := filepath.Join(testRepository, "ledgercheck.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--config", cfg, "--port", "x.sql"}, "--port: " + cfg + " lists sidecars (version 3)"},
		{[]string{"check", "--config", cfg, "--artifact-previous", "x.sql"}, "--artifact-previous: "},
		{[]string{"parity", "--config", cfg}, "lists sidecars (version 3): name the one ledgercheck parity acts on with --sidecar NAME"},
		{[]string{"check", "--config", cfg, "--sidecar", "tag-peple"}, "--sidecar tag-peple: " + cfg + " has no sidecar of that name (did you mean tag-people?)"},
		{[]string{"check", "--config", cfg, "--sidecar", "people", "--changed", "main"}, "--sidecar people and --changed main: give one"},
		{[]string{"allowlist", "suggest", "--config", cfg}, "lists sidecars (version 3)"},
		{[]string{"check", "--config", cfg, "--changed", "no-such-ref-27"}, "--changed no-such-ref-27: no merge base of HEAD and no-such-ref-27"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != ExitInput || out != "" || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line with %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// A sidecar whose need does not install is not checked, and says so, pointing at that install;
// the need's failure is reported once, in its own phase.
func TestRepositoryNeedDoesNotInstall(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "base.sql"), "CREATE TABLE public.base_rows (id bigint PRIMARY KEY, thought_id uuid REFERENCES public.no_such_table (id));\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "child.sql"), "CREATE TABLE IF NOT EXISTS public.child_rows (id bigint PRIMARY KEY, base_id bigint REFERENCES public.base_rows (id));\nALTER TABLE public.child_rows ENABLE ROW LEVEL SECURITY;\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "grandchild.sql"), "CREATE OR REPLACE VIEW public.child_ids WITH (security_invoker = true) AS SELECT id FROM public.child_rows;\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "ledgercheck.yaml"), "version: 3\nsidecars:\n  - {name: base, file: base.sql, dim: 1536}\n  - {name: child, file: child.sql, dim: 1536, needs: [base]}\n  - {name: grandchild, file: grandchild.sql, dim: 1536, needs: [child]}\n")
	t.Chdir(dir)
	rep := repositoryCheck(t)
	var install, child, grandchild []report.PhaseResult
	for _, ph := range rep.Phases {
		switch {
		case ph.Name == "install base":
			install = append(install, ph)
		case strings.HasSuffix(ph.Name, " child"):
			child = append(child, ph)
		case strings.HasSuffix(ph.Name, " grandchild"):
			grandchild = append(grandchild, ph)
		}
	}
	if len(grandchild) != 1 || grandchild[0].Status != report.StatusSkip || !strings.Contains(grandchild[0].Notes[0], "not checked: grandchild needs base (through child), which does not install (see the phase install base)") {
		t.Errorf("grandchild: %+v; want one skipped phase pointing at install base", grandchild)
	}
	if len(install) != 1 || install[0].Status != report.StatusFail || len(install[0].Findings) != 1 {
		t.Errorf("install base: %+v; want one install-failed finding", install)
	}
	if len(child) != 1 || child[0].Status != report.StatusSkip || !strings.Contains(child[0].Notes[0], "not checked: child needs base, which does not install (see the phase install base)") {
		t.Errorf("child: %+v; want one skipped phase pointing at install base", child)
	}
	if rep.Status() != report.StatusFail {
		t.Errorf("status %s", rep.Status())
	}
}

// A sidecar whose migrations did not change is checked again when a file its check reads did:
// its fixture, a prerequisite file or a port's allowlist; a changed configuration touches all.
func TestChangedInputsOfASidecar(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	c := &config.Config{Path: "repo/ledgercheck.yaml"}
	c.Fixture = "repo/fixtures/people.sql"
	c.Prerequisites.Files = []string{"repo/base/thoughts.sql"}
	c.Ports = []config.Port{{Name: "small", Allowlist: "repo/allowlists/small.yaml"}}
	for _, file := range []string{c.Fixture, c.Prerequisites.Files[0], c.Ports[0].Allowlist} {
		ch := &changes{files: map[string]bool{abs(file): true}}
		if !ch.inputs(c) {
			t.Errorf("%s changed: the sidecar is not checked again", file)
		}
	}
	ch := &changes{files: map[string]bool{abs("repo/other/fixture.sql"): true}}
	if ch.inputs(c) || ch.changed(c.Path) {
		t.Error("a file the sidecar does not read changed: the sidecar is checked again")
	}
	if ch := (&changes{files: map[string]bool{abs(c.Path): true}}); !ch.changed(c.Path) {
		t.Error("the configuration changed: not seen")
	}
}

// A sidecar with no fixture that creates no table of its own (a view, a cleanup over its needs'
// tables) is rerun over generated rows in the tables of the sidecars it needs, so that a rerun
// that deletes them fails as it would over the sidecar's own tables.
func TestRepositoryRerunOverNeedsRows(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "notes.sql"), "CREATE TABLE IF NOT EXISTS public.qa_notes (id bigint PRIMARY KEY, thought_id uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE, body text NOT NULL);\nALTER TABLE public.qa_notes ENABLE ROW LEVEL SECURITY;\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "view.sql"), "CREATE OR REPLACE VIEW public.qa_note_bodies WITH (security_invoker = true) AS SELECT id, body FROM public.qa_notes;\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "prune.sql"), "DELETE FROM public.qa_notes WHERE true;\nNOTIFY pgrst, 'reload schema';\n")
	write(t, filepath.Join(dir, "ledgercheck.yaml"), "version: 3\nsidecars:\n  - {name: notes, file: notes.sql, dim: 1536}\n  - {name: view, file: view.sql, dim: 1536, needs: [notes]}\n  - {name: prune, file: prune.sql, dim: 1536, needs: [notes]}\n")
	t.Chdir(dir)
	rep := repositoryCheck(t)
	rerun := map[string]report.PhaseResult{}
	for _, ph := range rep.Phases {
		if name, ok := strings.CutPrefix(ph.Name, "rerun "); ok {
			rerun[name] = ph
		}
	}
	if v := rerun["view"]; v.Status != report.StatusPass || v.Counts["generated_rows"] == 0 || !strings.Contains(strings.Join(v.Notes, "\n"), "generated rows in 2 tables") {
		t.Errorf("rerun view: %s, %d generated rows, notes %q; want a pass over generated rows in qa_notes and thoughts", v.Status, v.Counts["generated_rows"], v.Notes)
	}
	p := rerun["prune"]
	lost := false
	for _, f := range p.Findings {
		lost = lost || f.Rule == "rerun-rows-lost"
	}
	if p.Status != report.StatusFail || !lost {
		t.Errorf("rerun prune: %s, findings %+v; want rerun-rows-lost for the rows of qa_notes it deletes", p.Status, p.Findings)
	}
}

// check --changed on a branch that adds a sidecar checks it and says that its upgrade is not
// checked because the file is new since the merge base (not that no previous version was given).
func TestChangedNewSidecarHasNoUpgrade(t *testing.T) {
	dir := t.TempDir()
	sidecar := func(table string) string {
		return "CREATE TABLE IF NOT EXISTS public." + table + " (id bigint PRIMARY KEY);\nALTER TABLE public." + table + " ENABLE ROW LEVEL SECURITY;\nNOTIFY pgrst, 'reload schema';\n"
	}
	write(t, filepath.Join(dir, "schemas/old/schema.sql"), sidecar("qa_old"))
	write(t, filepath.Join(dir, "ledgercheck.yaml"), "version: 3\nsidecars:\n  - {glob: \"schemas/*/schema.sql\", dim: 1536}\n")
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "one sidecar")
	gitIn(t, dir, "checkout", "-q", "-b", "add-new")
	write(t, filepath.Join(dir, "schemas/new/schema.sql"), sidecar("qa_new"))
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "a new sidecar")
	t.Chdir(dir)
	rep := repositoryCheck(t, "--changed", "main")
	var notes []string
	for _, ph := range rep.Phases {
		if strings.HasSuffix(ph.Name, " old") {
			t.Errorf("phase %q: the branch did not change old", ph.Name)
		}
		if ph.Name == "rerun new" {
			notes = ph.Notes
		}
	}
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "upgrade not run: schemas/new/schema.sql is new since ") || !strings.Contains(all, "(the merge base), so there is no upgrade to check") {
		t.Errorf("rerun new's notes:\n%s\nwant the upgrade skipped because the file is new", all)
	}
}

// lint --install of a repository's files installs each over the sidecars it needs, as check
// does: the view over two other sidecars' tables installs (over the top-level keys alone it
// failed with relation "public.thought_tags" does not exist), beside a sidecar that needs none.
func TestRepositoryLintInstallsOverNeeds(t *testing.T) {
	scratchtest.NeedPostgres(t)
	t.Chdir(testRepository)
	code, out, errs := runCLI(t, "lint", "-q", "--install", "recipes/tag-people/view.sql", "schemas/people/schema.sql")
	if code != ExitOK {
		t.Errorf("lint --install: exit %d\n%s%s", code, out, errs)
	}
}
