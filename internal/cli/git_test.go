package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/input"
)

// programKeys are the configuration keys that make git run a program, each set (in a planted
// git directory's config, in the repository's own config for the drivers the tree's
// .gitattributes choose, and through GIT_* variables) to a program that leaves a marker.
var programKeys = []string{
	"core.fsmonitor", "core.pager", "core.sshCommand", "core.askPass", "core.editor", "core.gitProxy",
	"diff.external", "credential.helper", "gpg.program", "sequence.editor",
	"filter.evil.clean", "filter.evil.smudge", "filter.evil.process",
	"diff.evil.textconv", "diff.evil.command", "merge.evil.driver",
}

// hooks are the hooks a planted core.hooksPath holds, each leaving a marker.
var hooks = []string{"post-index-change", "post-checkout", "pre-commit", "reference-transaction", "fsmonitor-watchman", "pre-auto-gc"}

// attack is a repository built as a pull request would leave it on a CI runner: the branch
// changes one sidecar and commits files meant to make git run programs; marks is where the
// programs would leave their markers, and bin the programs.
type attack struct {
	dir, marks, bin string
}

// newAttack builds the repository: main holds testdata/repository under db/ (the configuration
// in a subdirectory, as the Action's config: input allows), the branch changes people's schema
// and adds what plant writes; when plant says so, the repository's own configuration then
// defines the drivers the tree's .gitattributes apply. Dates and identities are fixed, as the repository tests' are.
func newAttack(t *testing.T, plant func(a *attack) (drivers bool)) *attack {
	t.Helper()
	root := t.TempDir()
	a := &attack{dir: filepath.Join(root, "repo"), marks: filepath.Join(root, "marks"), bin: filepath.Join(root, "bin")}
	for _, d := range []string{a.marks, a.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range append(slices.Clone(programKeys), hooks...) {
		write(t, filepath.Join(a.bin, k), "#!/bin/sh\ntouch "+filepath.Join(a.marks, k)+"\ncat >/dev/null 2>&1 </dev/null\nexit 1\n")
		if err := os.Chmod(filepath.Join(a.bin, k), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := filepath.Abs(testRepository)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(a.dir, "db")
	if err := os.CopyFS(db, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(db, "check.golden"))
	os.Remove(filepath.Join(db, "changed.golden"))
	gitIn(t, a.dir, "init", "-q", "-b", "main")
	gitIn(t, a.dir, "add", ".")
	gitIn(t, a.dir, "commit", "-q", "-m", "the repository")
	gitIn(t, a.dir, "checkout", "-q", "-b", "pr")
	people := filepath.Join(db, "schemas/people/schema.sql")
	b, err := os.ReadFile(people)
	if err != nil {
		t.Fatal(err)
	}
	write(t, people, strings.Replace(string(b), "NOTIFY pgrst", "GRANT SELECT ON public.people TO anon;\nNOTIFY pgrst", 1))
	drivers := plant(a)
	gitIn(t, a.dir, "add", "-A")
	gitIn(t, a.dir, "commit", "-q", "-m", "people: readable by anon")
	if drivers {
		a.defineDrivers(t)
	}
	return a
}

// program is the marker-leaving program for key, as a configuration value.
func (a *attack) program(key string) string {
	p := filepath.Join(a.bin, key)
	if key == "credential.helper" {
		return "!" + p
	}
	return p
}

// config is a git configuration that sets every program-running key (and hooksPath) to a
// marker-leaving program.
func (a *attack) config(extra string) string {
	sections := map[string][]string{}
	for _, k := range programKeys {
		i := strings.LastIndex(k, ".")
		sec := k[:i]
		if j := strings.Index(sec, "."); j >= 0 {
			sec = fmt.Sprintf("%s %q", sec[:j], sec[j+1:])
		}
		sections[sec] = append(sections[sec], fmt.Sprintf("\t%s = %s", k[i+1:], a.program(k)))
	}
	var b strings.Builder
	for _, sec := range slices.Sorted(maps.Keys(sections)) {
		fmt.Fprintf(&b, "[%s]\n%s\n", sec, strings.Join(sections[sec], "\n"))
	}
	fmt.Fprintf(&b, "[core]\n\thooksPath = %s\n\tfsmonitorHookVersion = 1\n\tuntrackedCache = true\n[filter \"evil\"]\n\trequired = true\n%s", a.bin, extra)
	return b.String()
}

// plantGitDir writes a working git directory under rel (a copy of one with a commit on main,
// so that git run there succeeds and reports nothing changed), with a config that makes the
// directory a repository with a work tree and sets every program-running key, and an
// include.path to a second configuration that sets them again.
func (a *attack) plantGitDir(t *testing.T, rel string) {
	t.Helper()
	decoy := t.TempDir()
	write(t, filepath.Join(decoy, "README.md"), "nothing to see\n")
	gitIn(t, decoy, "init", "-q", "-b", "main")
	gitIn(t, decoy, "add", ".")
	gitIn(t, decoy, "commit", "-q", "-m", "decoy")
	d := filepath.Join(a.dir, rel)
	if err := os.CopyFS(d, os.DirFS(filepath.Join(decoy, ".git"))); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(d, "index"))
	write(t, filepath.Join(d, "included.cfg"), a.config(""))
	write(t, filepath.Join(d, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n[include]\n\tpath = included.cfg\n"+a.config(""))
}

// plantAttributes writes a .gitattributes that applies the "evil" filter, diff and merge
// drivers to every file.
func (a *attack) plantAttributes(t *testing.T) {
	t.Helper()
	write(t, filepath.Join(a.dir, ".gitattributes"), "* filter=evil diff=evil merge=evil\n")
}

// defineDrivers defines every program-running key, the "evil" drivers' included, in the
// repository's own configuration (as a runner's configuration could define a driver the tree
// then applies).
func (a *attack) defineDrivers(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(a.dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(a.config("")); err != nil {
		t.Fatal(err)
	}
}

// ran lists the markers the programs left.
func (a *attack) ran(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(a.marks)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// cleanChanges is what --changed main reports in a clean clone of a's commits, read with plain
// git there: the changed files relative to the top level and each one's content at the merge base
// ("" for a new file).
func cleanChanges(t *testing.T, a *attack) map[string]string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	try := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		return string(out), err
	}
	plain := func(dir string, args ...string) string {
		out, err := try(dir, args...)
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	plain(a.dir, "clone", "-q", "--no-local", "--branch", "pr", ".", clone)
	plain(clone, "branch", "-q", "main", "origin/main")
	base := strings.TrimSpace(plain(clone, "merge-base", "HEAD", "main"))
	out := map[string]string{}
	for _, p := range strings.Split(plain(clone, "diff", "--name-only", "-z", "--no-renames", base, "--"), "\x00") {
		if p != "" {
			out[p], _ = try(clone, "cat-file", "blob", base+":"+p) // "" for a file new since base
		}
	}
	return out
}

// changesOf is what gitChanges read, in cleanChanges's form.
func changesOf(t *testing.T, a *attack, ch *changes) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p := range ch.files {
		rel, err := filepath.Rel(ch.top, p)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := ch.repo.run(context.Background(), "cat-file", "blob", ch.base+":"+rel)
		out[filepath.ToSlash(rel)] = src
	}
	return out
}

// check --changed runs no program that the repository under review chooses: a git directory
// planted on the way from the configuration to the top level is an input error naming it, and
// one planted elsewhere, drivers the tree's .gitattributes apply and GIT_* variables pointing at
// the planted directory or at programs change nothing: no program runs, and the files reported
// changed (with their content at the merge base) are a clean clone's.
func TestChangedRunsNoProgramOfTheRepository(t *testing.T) {
	for _, tc := range []struct {
		name, plant string // where a git directory is planted ("": none)
		attributes  bool
		env         bool
		refused     string // the directory an input error names
	}{
		{name: "git directory in the configuration's directory", plant: "db", refused: "db"},
		{name: "git directory above the configuration", plant: "db/schemas", refused: "db/schemas"},
		{name: "git directory elsewhere, attributes and environment", plant: "db/schemas/people/evil", attributes: true, env: true},
		{name: "attributes applying the repository's drivers", attributes: true},
		{name: "environment", plant: "planted", env: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAttack(t, func(a *attack) bool {
				if tc.plant != "" {
					a.plantGitDir(t, tc.plant)
				}
				if tc.attributes {
					a.plantAttributes(t)
				}
				return tc.attributes
			})
			// A clean clone's changes, read before the environment points git elsewhere; a
			// refused directory's case compares none (the clone would be read for nothing).
			var want map[string]string
			if tc.refused == "" {
				want = cleanChanges(t, a)
			}
			cfgDir := filepath.Join(a.dir, "db")
			if tc.refused != "" {
				cfgDir = filepath.Join(a.dir, tc.refused)
			}
			if tc.env {
				a.setEnv(t, tc.plant)
			}
			t.Chdir(a.dir)
			ch, err := gitChanges(context.Background(), input.Scope{Root: a.dir}, cfgDir, "main")
			if ran := a.ran(t); len(ran) > 0 {
				t.Errorf("programs of the repository ran: %v", ran)
			}
			if tc.refused != "" {
				want := filepath.Join(a.dir, tc.refused) + " holds the files of a git directory"
				if err == nil || !strings.Contains(err.Error(), want) || exitOf(err) != ExitInput {
					t.Fatalf("err %v (exit %d); want an input error naming %s", err, exitOf(err), want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := changesOf(t, a, ch); !maps.Equal(got, want) {
				t.Errorf("changed files %v; a clean clone's are %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		})
	}
}

// setEnv points the GIT_* variables an earlier step of a job could have set at the planted git
// directory (rel, when not "") and at marker-leaving programs.
func (a *attack) setEnv(t *testing.T, rel string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "global")
	write(t, cfg, a.config(""))
	if rel != "" {
		t.Setenv("GIT_DIR", filepath.Join(a.dir, rel))
		t.Setenv("GIT_WORK_TREE", filepath.Join(a.dir, "db"))
		t.Setenv("GIT_OBJECT_DIRECTORY", filepath.Join(a.dir, rel, "objects"))
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_SYSTEM", cfg)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='"+a.program("core.fsmonitor")+"'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", a.bin)
	t.Setenv("GIT_EXTERNAL_DIFF", a.program("diff.external"))
	t.Setenv("GIT_PAGER", a.program("core.pager"))
	t.Setenv("GIT_SSH_COMMAND", a.program("core.sshCommand"))
	t.Setenv("GIT_ASKPASS", a.program("core.askPass"))
	t.Setenv("GIT_EDITOR", a.program("core.editor"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(a.dir, "planted-index"))
}

// exitOf is the exit code Run maps err to.
func exitOf(err error) int {
	var b bytes.Buffer
	return exitCode(err, &b)
}
