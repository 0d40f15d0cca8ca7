package scripts

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// action is what the tests read of action.yml: its inputs' defaults and its steps.
type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Steps []actionStepDef `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStepDef is one step of the composite action.
type actionStepDef struct {
	Name, ID, If, Run, Uses string
	Env                     map[string]string
	With                    map[string]string
	WorkingDirectory        string `yaml:"working-directory"`
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// actionStep returns the run script of action.yml's step whose name starts with prefix.
func actionStep(t *testing.T, prefix string) string {
	t.Helper()
	for _, s := range readAction(t).Runs.Steps {
		if strings.HasPrefix(s.Name, prefix) && s.Run != "" {
			return s.Run
		}
	}
	t.Fatalf("action.yml has no step named %s...", prefix)
	return ""
}

// expression is a ${{ ... }} of a workflow.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runner runs the composite action's run steps as GitHub's runner does: each step's script with
// bash --noprofile --norc -eo pipefail, its env (the expressions a run step may use: inputs.X,
// steps.ID.outputs.X, github.action_ref, runner.temp), in its working directory under the
// workspace, with the variables the runner sets (GITHUB_WORKSPACE, GITHUB_ACTION_PATH,
// RUNNER_TEMP, GITHUB_OUTPUT per step, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS, ...), and the
// outputs a step writes to GITHUB_OUTPUT kept for the steps after it.
type runner struct {
	inputs                                 map[string]string
	workspace, actionPath, actionRef, temp string
	summary                                string
	path                                   string
	outputs                                map[string]map[string]string
	stdout                                 strings.Builder
}

// eval resolves one expression of a run step, failing the test on any other than the few a run
// step may use (whatever else action.yml computes belongs to its `uses:` steps, or in bash).
func (r *runner) eval(t *testing.T, expr string) string {
	t.Helper()
	parts := strings.Split(expr, ".")
	switch {
	case len(parts) == 2 && parts[0] == "inputs":
		v, ok := r.inputs[parts[1]]
		if !ok {
			t.Fatalf("action.yml uses the undeclared input %s", parts[1])
		}
		return v
	case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
		return r.outputs[parts[1]][parts[3]]
	case expr == "github.action_ref":
		return r.actionRef
	case expr == "github.action_path":
		return r.actionPath
	case expr == "runner.temp":
		return r.temp
	}
	t.Fatalf("a run step of action.yml uses the expression %q, which the runner simulation does not evaluate: compute it in bash from the step's env", expr)
	return ""
}

func (r *runner) subst(t *testing.T, s string) string {
	return expression.ReplaceAllStringFunc(s, func(m string) string { return r.eval(t, expression.FindStringSubmatch(m)[1]) })
}

// step runs one run step and returns its exit code and output.
func (r *runner) step(t *testing.T, s actionStepDef) (int, string) {
	t.Helper()
	if s.If != "" {
		t.Fatalf("run step %q has an if: (%s); the simulation runs every run step", s.Name, s.If)
	}
	if strings.Contains(s.Run, "${{") {
		t.Fatalf("run step %q has an expression in its script; pass it in env", s.Name)
	}
	output := filepath.Join(r.temp, "output-"+strings.ReplaceAll(s.Name, " ", "-"))
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir = filepath.Join(r.workspace, r.subst(t, s.WorkingDirectory))
	cmd.Env = append(os.Environ(), "PATH="+r.path, "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+r.workspace,
		"GITHUB_ACTION_PATH="+r.actionPath, "GITHUB_ACTION_REF="+r.actionRef, "RUNNER_TEMP="+r.temp,
		"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_JOB=gate", "RUNNER_OS=Linux", "NO_COLOR=")
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+r.subst(t, v))
	}
	out, err := cmd.CombinedOutput()
	code := exitCode(t, err)
	if s.ID != "" {
		r.outputs[s.ID] = map[string]string{}
		if f, err := os.Open(output); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					r.outputs[s.ID][k] = v
				}
			}
			f.Close()
		}
	}
	r.stdout.Write(out)
	return code, string(out)
}

// recipe returns the `with:` of the step of docs/how-to/ci.md's workflow that uses the action
// from another repository (uses: OWNER/ledgercheck@...), the recipe a user copies.
func recipe(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("../docs/how-to/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	for _, b := range blocks {
		if !strings.Contains(b[1], "uses: OWNER/ledgercheck@") || !strings.Contains(b[1], "# the recipe tested") {
			continue
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []actionStepDef `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(b[1]), &wf); err != nil {
			t.Fatalf("docs/how-to/ci.md: the recipe is not YAML: %v", err)
		}
		for _, j := range wf.Jobs {
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "OWNER/ledgercheck@") {
					return s.With
				}
			}
		}
	}
	t.Fatal("docs/how-to/ci.md has no workflow marked `# the recipe tested` that uses OWNER/ledgercheck@...")
	return nil
}

// TestActionRecipeInAUsersRepository runs the composite action as docs/how-to/ci.md's recipe uses
// it, in a repository that is not ledgercheck's: a new git repository in a temporary directory
// holding a sidecar of a user's own (with a grant to anon, an error) and its ledgercheck.yaml, the
// workspace; the action's own source (this checkout) is GITHUB_ACTION_PATH, as GitHub downloads
// it beside the workspace. Every run step runs as the runner runs it (see runner) with the
// recipe's inputs and the action's defaults: the install step builds ledgercheck from the
// action's source, setup has nothing to do (this machine ran make setup; elsewhere the test
// skips, and fails under CI=true), and check exits 1 with the finding as an annotation, the job
// summary appended to $GITHUB_STEP_SUMMARY, and the SARIF file the upload step names, with the
// finding at the user's file, relative to the workspace.
func TestActionRecipeInAUsersRepository(t *testing.T) {
	needSetupDone(t, "15")
	a := readAction(t)
	r := newRunner(t)
	for k, in := range a.Inputs {
		r.inputs[k] = in.Default
	}
	for k, v := range recipe(t) {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("the recipe gives the input %s, which action.yml does not declare", k)
		}
		r.inputs[k] = v
	}
	writeUserRepo(t, r.workspace)

	var codes []int
	var upload *actionStepDef
	for i, s := range a.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif"):
			upload = &a.Runs.Steps[i]
		case s.Run != "":
			code, out := r.step(t, s)
			codes = append(codes, code)
			if code != 0 && s.ID != "check" {
				t.Fatalf("step %q: exit %d:\n%s", s.Name, code, out)
			}
		}
	}
	if len(codes) != 3 || codes[2] != 1 || r.outputs["check"]["exit-code"] != "1" {
		t.Fatalf("the run steps exited %v, check's exit-code output %q; want install, setup and check, check exiting 1:\n%s", codes, r.outputs["check"]["exit-code"], r.stdout.String())
	}
	if !strings.Contains(r.stdout.String(), "setup: nothing to do") ||
		!strings.Contains(r.stdout.String(), "::error file=supabase/sidecars/agent_playbooks.sql,line=") {
		t.Errorf("the steps' log lacks setup's nothing to do or the finding's annotation:\n%s", r.stdout.String())
	}
	summary, err := os.ReadFile(r.summary)
	if err != nil || !strings.Contains(string(summary), "FAIL") || !strings.Contains(string(summary), "grant-to-api-role") {
		t.Errorf("the job summary (%v) does not give the verdict and the finding:\n%s", err, summary)
	}
	if upload == nil {
		t.Fatal("action.yml has no upload-sarif step")
	}
	sarifFile := filepath.Join(r.workspace, r.subst(t, upload.With["sarif_file"]))
	data, err := os.ReadFile(sarifFile)
	if err != nil {
		t.Fatalf("the upload step's sarif_file: %v", err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI, URIBaseID string
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("%s is no SARIF 2.1.0 log of one run: %v", sarifFile, err)
	}
	found := false
	for _, res := range log.Runs[0].Results {
		for _, l := range res.Locations {
			if uri := l.PhysicalLocation.ArtifactLocation.URI; res.RuleID == "grant-to-api-role" && uri == "supabase/sidecars/agent_playbooks.sql" {
				found = true
			}
		}
	}
	if !found || strings.Contains(string(data), r.actionPath) {
		t.Errorf("the SARIF lacks grant-to-api-role at supabase/sidecars/agent_playbooks.sql, or names the action's directory:\n%.2000s", data)
	}
}

// newRunner returns a runner over a new workspace and runner temp directory, with this checkout
// as the action's path (ref v0) and the machine's PATH without GOFLAGS' surprises.
func newRunner(t *testing.T) *runner {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	temp := t.TempDir()
	r := &runner{inputs: map[string]string{}, workspace: t.TempDir(), actionPath: root, actionRef: "v0", temp: temp,
		summary: filepath.Join(temp, "step_summary.md"), path: os.Getenv("PATH"), outputs: map[string]map[string]string{}}
	return r
}

// writeUserRepo makes dir a git repository of a user's own: the sidecar of testdata/userrepo with
// a grant to anon (a finding), and its configuration.
func writeUserRepo(t *testing.T, dir string) {
	t.Helper()
	src, err := os.ReadFile("../testdata/userrepo/agent_playbooks.sql")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "NOTIFY pgrst", "GRANT SELECT ON public.agent_playbooks TO anon;\n\nNOTIFY pgrst", 1)
	copyFile(t, "", filepath.Join(dir, "supabase", "sidecars", "agent_playbooks.sql"), []byte(bad))
	copyFile(t, "", filepath.Join(dir, "ledgercheck.yaml"), []byte("version: 2\nartifact:\n  file: supabase/sidecars/agent_playbooks.sql\n  dim: 1536\n"))
	if out, err := exec.Command("git", "-C", dir, "init", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// stubs writes executable scripts into a new directory, one per name, each recording its call
// ("name args") in the file calls beside it and running body; it returns the directory and that
// file.
func stubs(t *testing.T, body string, names ...string) (dir, calls string) {
	t.Helper()
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls")
	for _, name := range names {
		copyFile(t, "", filepath.Join(dir, name), []byte("#!/bin/sh\necho \""+name+" $*\" >> "+calls+"\n"+body+"\n"))
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, calls
}

// TestActionSetupStepWithoutSudo: the Action's setup step, run as GitHub runs a composite step's
// script, runs `ledgercheck setup` with the postgres input as --pg, directly as root (a container
// job, where sudo may not exist: a sudo stub records any call), through sudo as another user;
// with a dsn it runs nothing but the guard's load into the container input, and with a dsn
// alone nothing; a failing setup becomes one annotation with its last line.
func TestActionSetupStepWithoutSudo(t *testing.T) {
	script := actionStep(t, "Set up PostgreSQL")
	dir, calls := stubs(t, `case "$*" in *fail*) echo "setup: missing for PostgreSQL 15: bubblewrap (x)" >&2; exit 3 ;; esac; echo "setup: nothing to do"`, "sudo", "ledgercheck")
	run := func(env ...string) (int, string, string) {
		os.Remove(calls)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Env = append(os.Environ(), append([]string{"LEDGERCHECK_BIN=" + filepath.Join(dir, "ledgercheck"), "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"),
			"LEDGERCHECK_POSTGRES=", "LEDGERCHECK_DSN=", "LEDGERCHECK_CONTAINER="}, env...)...)
		out, err := cmd.CombinedOutput()
		code := exitCode(t, err)
		c, _ := os.ReadFile(calls)
		return code, string(out), strings.TrimSuffix(strings.ReplaceAll(string(c), dir+"/", ""), "\n")
	}
	asRoot := "ledgercheck setup --pg 17"
	if os.Geteuid() != 0 {
		asRoot = "sudo ledgercheck setup --pg 17\nledgercheck setup --pg 17"
	}
	for _, tc := range []struct {
		env   []string
		calls string
	}{
		{[]string{"LEDGERCHECK_POSTGRES=17"}, asRoot},
		{[]string{"LEDGERCHECK_DSN=postgres://x", "LEDGERCHECK_CONTAINER=svc1"}, "ledgercheck setup --container svc1"},
		{[]string{"LEDGERCHECK_DSN=postgres://x"}, ""},
	} {
		if code, out, got := run(tc.env...); code != 0 || got != tc.calls {
			t.Errorf("%v: exit %d, calls %q; want exit 0 and %q\n%s", tc.env, code, got, tc.calls, out)
		}
	}
	code, out, _ := run("LEDGERCHECK_DSN=postgres://x", "LEDGERCHECK_CONTAINER=fail")
	if code != 1 || !strings.Contains(out, "::error title=ledgercheck setup::setup: missing for PostgreSQL 15: bubblewrap (x)") {
		t.Errorf("a failing setup: exit %d, log %q; want exit 1 and the annotation", code, out)
	}
}

// TestActionUsesAPrebuiltBinary: given the binary input, the Action's install step builds
// nothing (go and make are stubs that record their calls) and hands the binary's absolute path to
// the check step (its output path); a binary input that is no executable file is a usage error
// (exit 2) with one annotation. Without one it builds from the action's directory, stamping the
// ref `uses:` names as the version when that directory is no git work tree (as GitHub downloads
// an action) and git describe's otherwise.
func TestActionUsesAPrebuiltBinary(t *testing.T) {
	script := actionStep(t, "Install ledgercheck")
	dir := t.TempDir()
	stubDir, calls := stubs(t, `for a in "$@"; do case "$a" in BIN=*) mkdir -p "$(dirname "${a#BIN=}")"; printf '#!/bin/sh\necho built\n' > "${a#BIN=}"; chmod +x "${a#BIN=}";; esac; done; case "$0" in *make) exit 0 ;; esac; exit 1`, "go", "make")
	copyFile(t, "", filepath.Join(dir, "work", "tools", "ledgercheck"), []byte("#!/bin/sh\necho 'ledgercheck v1.2.3 (prebuilt)'\n"))
	if err := os.Chmod(filepath.Join(dir, "work", "tools", "ledgercheck"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(binary, actionPath string) (int, string, string) {
		output := filepath.Join(dir, "output")
		os.Remove(output)
		os.Remove(calls)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = filepath.Join(dir, "work")
		cmd.Env = append(os.Environ(), "LEDGERCHECK_POSTGRES=", "LEDGERCHECK_BINARY="+binary, "GITHUB_OUTPUT="+output, "LEDGERCHECK_ACTION_REF=v0",
			"GITHUB_ACTION_PATH="+actionPath, "RUNNER_TEMP="+dir, "PATH="+stubDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		code := exitCode(t, err)
		got, _ := os.ReadFile(output)
		return code, string(out), string(got)
	}
	code, out, output := run("tools/ledgercheck", "/nonexistent")
	if want := "path=" + filepath.Join(dir, "work", "tools", "ledgercheck") + "\n"; code != 0 || output != want || !strings.Contains(out, "ledgercheck v1.2.3 (prebuilt)") {
		t.Errorf("binary: tools/ledgercheck: exit %d, output %q, log %q; want exit 0, %q and its --version", code, output, out, want)
	}
	code, out, output = run("tools/missing", "/nonexistent")
	if code != 2 || output != "" || !strings.HasPrefix(out, "::error title=ledgercheck::binary: tools/missing is not an executable file") {
		t.Errorf("binary: tools/missing: exit %d, output %q, log %q; want exit 2 and one annotation", code, output, out)
	}
	if c, _ := os.ReadFile(calls); len(c) > 0 {
		t.Errorf("the install step built ledgercheck though a binary was given:\n%s", c)
	}
	downloaded := t.TempDir() // the action's source as GitHub downloads it: no .git
	bin := filepath.Join(dir, "ledgercheck-bin", "ledgercheck")
	root, _ := filepath.Abs("..")
	for path, want := range map[string]string{downloaded: "make --no-print-directory build BIN=" + bin + " VERSION=v0", root: "make --no-print-directory build BIN=" + bin} {
		code, out, output = run("", path)
		c, _ := os.ReadFile(calls)
		if code != 0 || strings.TrimSpace(string(c)) != want || output != "path="+bin+"\n" {
			t.Errorf("no binary, the action in %s: exit %d, calls %q, output %q; want %q\n%s", path, code, c, output, want, out)
		}
	}
}

// exitCode is the exit code of a command's run that ended with err; a command that could not run
// fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return 0
}
