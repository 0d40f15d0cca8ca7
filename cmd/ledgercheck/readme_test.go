package main

// The README's examples, tested as written (README.md says how blocks are marked).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// readmePath is the README, from this package's directory.
const readmePath = "../../README.md"

// block is one fenced code block of the README.
type block struct {
	lang, marker string // the info string's words: "sh", "runnable"
	line         int    // of the first line of code
	code         string
}

// readmeBlocks returns the README's fenced code blocks.
func readmeBlocks(t *testing.T) []block {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var cur *block
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			info := strings.Fields(strings.TrimPrefix(l, "```"))
			cur = &block{line: n + 1}
			if len(info) > 0 {
				cur.lang = info[0]
			}
			if len(info) > 1 {
				cur.marker = info[1]
			}
		case cur != nil && strings.TrimSpace(l) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.code += l + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("README.md:%d: a code block is not closed", cur.line-1)
	}
	return blocks
}

// TestReadmeShellBlocksParse: every sh block of the README is valid bash, and only the known
// markers are used.
func TestReadmeShellBlocksParse(t *testing.T) {
	n := 0
	for _, b := range readmeBlocks(t) {
		if b.lang != "sh" {
			continue
		}
		n++
		if b.marker != "" && b.marker != "runnable" && b.marker != "runnable-in-repo" {
			t.Errorf("README.md:%d: unknown marker %q; want runnable or runnable-in-repo", b.line, b.marker)
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(b.code)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README.md:%d: bash -n: %v: %s", b.line, err, out)
		}
	}
	if n == 0 {
		t.Fatal("no sh blocks found")
	}
}

// exitComment is a "# exit N" annotation: at the end of a command's line, or on a comment line
// of its own after it.
var exitComment = regexp.MustCompile(`^(.*?)\s*#\s*exit (\d+)\b.*$`)

// shellScript turns a runnable block into a script that stops at the first command whose exit
// code is not the one the README gives (0 unless annotated), naming its README line.
func shellScript(b block) string {
	lines := strings.Split(strings.TrimSuffix(b.code, "\n"), "\n")
	// An annotation on a line of its own applies to the command above it.
	want := make([]int, len(lines))
	for i := range lines {
		want[i] = -1
	}
	for i, l := range lines {
		m := exitComment.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		code, _ := strconv.Atoi(m[2])
		if strings.TrimSpace(m[1]) == "" && i > 0 {
			want[i-1] = code
		} else {
			want[i] = code
		}
	}
	var s strings.Builder
	s.WriteString("set -eu\n")
	for i, l := range lines {
		if want[i] < 0 {
			s.WriteString(l + "\n")
			continue
		}
		cmd := l // annotated on the next line
		if m := exitComment.FindStringSubmatch(l); m != nil {
			cmd = strings.TrimSpace(m[1])
		}
		fmt.Fprintf(&s, "rc=0; %s || rc=$?; if [ \"$rc\" -ne %d ]; then echo \"README.md:%d: exit $rc, want %d: %s\" >&2; exit 99; fi\n",
			cmd, want[i], b.line+i, want[i], strings.ReplaceAll(strings.ReplaceAll(cmd, `\`, `\\`), `"`, `\"`))
	}
	return s.String()
}

// TestReadmeRunnableBlocks runs every runnable block as written, with the built binary first on
// PATH: in an empty directory, or (runnable-in-repo) from the repository root. Each command exits
// 0 unless its "# exit N" comment says otherwise; whatever a block leaves running (env up) is
// killed with its process group.
func TestReadmeRunnableBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("installs migrations (-short)")
	}
	scratchtest.NeedPostgres(t)
	bin := binary(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, b := range readmeBlocks(t) {
		if b.lang != "sh" || !strings.HasPrefix(b.marker, "runnable") {
			continue
		}
		ran++
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			dir := t.TempDir()
			if b.marker == "runnable-in-repo" {
				dir = root
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", shellScript(b))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if cmd.Process != nil {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // a background env up, if the block failed before its kill
			}
			if err != nil {
				t.Errorf("the block failed: %v\n%s", err, out.String())
			}
		})
	}
	if ran == 0 {
		t.Fatal("no runnable sh blocks found")
	}
}

// TestReadmeYAMLExamples reads every yaml example the way it would be used: a ledgercheck.yaml
// (version and artifact, ports or variants) with the configuration loader, an allowlist
// (entries) with the allowlist loader, anything else (GitHub workflows and steps, the pre-commit
// configuration) as YAML.
func TestReadmeYAMLExamples(t *testing.T) {
	kinds := map[string]int{}
	for _, b := range readmeBlocks(t) {
		if b.lang != "yaml" {
			continue
		}
		var doc any
		if err := yaml.Unmarshal([]byte(b.code), &doc); err != nil {
			t.Errorf("README.md:%d: not YAML: %v", b.line, err)
			continue
		}
		m, _ := doc.(map[string]any)
		name := fmt.Sprintf("README.md:%d", b.line)
		switch {
		case m["entries"] != nil:
			kinds["allowlist"]++
			if _, err := allowlist.Parse(name, []byte(b.code)); err != nil {
				t.Errorf("%s: the allowlist example does not load: %v", name, err)
			}
		case m["version"] != nil:
			kinds["config"]++
			if _, err := config.Parse(filepath.Join("..", "..", "ledgercheck.yaml"), []byte(b.code)); err != nil {
				t.Errorf("%s: the configuration example does not load: %v", name, err)
			}
		default:
			kinds["yaml"]++
			jobs, _ := m["jobs"].(map[string]any)
			for id, j := range jobs {
				job, _ := j.(map[string]any)
				if steps, _ := job["steps"].([]any); job["runs-on"] == nil || len(steps) == 0 {
					t.Errorf("%s: job %s has no runs-on or no steps", name, id)
				}
			}
		}
	}
	if kinds["allowlist"] == 0 || kinds["config"] == 0 || kinds["yaml"] == 0 {
		t.Errorf("examples found per kind: %v; want at least one allowlist, configuration and workflow", kinds)
	}
}

// tagRef is a reference to a release of ledgercheck: OWNER/ledgercheck@vX, or pre-commit's
// rev: vX.
var tagRef = regexp.MustCompile(`(?:ledgercheck@|\brev:\s*)(v\d[\w.-]*)`)

// TestNoReferenceToAMissingTag: the README, the docs, action.yml and .pre-commit-hooks.yaml refer
// to no release tag that the repository does not have (until there are tags, examples say main or
// a commit); action.yml and the hooks file are YAML.
func TestNoReferenceToAMissingTag(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "tag", "--list").Output()
	if err != nil {
		t.Skipf("git tag: %v", err)
	}
	tags := map[string]bool{}
	for _, tag := range strings.Fields(string(out)) {
		tags[tag] = true
	}
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, readmePath, "../../CHANGELOG.md", "../../action.yml", "../../.pre-commit-hooks.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tagRef.FindAllStringSubmatch(string(data), -1) {
			if !tags[m[1]] {
				t.Errorf("%s refers to %q, and there is no tag %s", f, m[0], m[1])
			}
		}
		if strings.HasSuffix(f, ".yml") || strings.HasSuffix(f, ".yaml") {
			var doc any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
