package main

// The README's examples, tested as written (README.md says how blocks are marked).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// block is one fenced code block of a markdown file of the documentation.
type block struct {
	file         string // relative to the repository root
	lang, marker string // the info string's words: "sh", "runnable"
	line         int    // of the first line of code
	code         string
}

// where is the block's file and first line, for messages.
func (b block) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docFiles returns README.md and every markdown file under docs/, relative to the repository
// root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repoRoot, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// docBlocks returns the fenced code blocks of README.md and of every page under docs/.
func docBlocks(t *testing.T) []block {
	t.Helper()
	var blocks []block
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, fencedBlocks(t, f, data)...)
	}
	return blocks
}

// fencedBlocks returns the fenced code blocks of the markdown file called name.
func fencedBlocks(t *testing.T, name string, data []byte) []block {
	t.Helper()
	var blocks []block
	var cur *block
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			info := strings.Fields(strings.TrimPrefix(l, "```"))
			cur = &block{file: name, line: n + 1}
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
		t.Fatalf("%s:%d: a code block is not closed", name, cur.line-1)
	}
	return blocks
}

// TestReadmeShellBlocksParse: every sh block of the documentation is valid bash, and only the
// known markers are used.
func TestReadmeShellBlocksParse(t *testing.T) {
	n := 0
	for _, b := range docBlocks(t) {
		if b.lang != "sh" {
			continue
		}
		n++
		switch b.marker {
		case "", "runnable", "runnable-in-repo", "runnable-pg", "runnable-pg-in-repo":
		default:
			t.Errorf("%s: unknown marker %q; want runnable, runnable-in-repo, runnable-pg or runnable-pg-in-repo", b.where(), b.marker)
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(b.code)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v: %s", b.where(), err, out)
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
		fmt.Fprintf(&s, "rc=0; %s || rc=$?; if [ \"$rc\" -ne %d ]; then echo \"%s:%d: exit $rc, want %d: %s\" >&2; exit 99; fi\n",
			cmd, want[i], b.file, b.line+i, want[i], strings.ReplaceAll(strings.ReplaceAll(cmd, `\`, `\\`), `"`, `\"`))
	}
	return s.String()
}

// TestReadmeRunnableBlocks runs every runnable block of the documentation as written, with the
// built binary first on PATH: in an empty directory (runnable), or from the repository root
// (runnable-in-repo). Those blocks are cheap (no PostgreSQL), so they run in every `make test`;
// the blocks that need a server are runnable-pg and run in TestReadmePostgresBlocks.
func TestReadmeRunnableBlocks(t *testing.T) {
	if n := runBlocks(t, "runnable", "runnable-in-repo"); n == 0 {
		t.Fatal("no runnable sh blocks found")
	}
}

// TestReadmePostgresBlocks runs the runnable-pg blocks (runnable-pg-in-repo: from the repository
// root), which start a server: where PostgreSQL is installed, and under CI=true always.
func TestReadmePostgresBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("installs migrations (-short)")
	}
	scratchtest.NeedPostgres(t)
	runBlocks(t, "runnable-pg", "runnable-pg-in-repo")
}

// runBlocks runs the sh blocks marked inDir (in an empty directory) or inRepo (from the
// repository root), and returns how many. Each command exits 0 unless its "# exit N" comment
// says otherwise; whatever a block leaves running (env up) is killed with its process group.
func runBlocks(t *testing.T, inDir, inRepo string) int {
	bin := binary(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, b := range docBlocks(t) {
		if b.lang != "sh" || b.marker != inDir && b.marker != inRepo {
			continue
		}
		ran++
		t.Run(b.where(), func(t *testing.T) {
			dir := t.TempDir()
			if b.marker == inRepo {
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
	return ran
}

// TestReadmeYAMLExamples reads every yaml example of the documentation the way it would be used:
// a ledgercheck.yaml (a version and no entries) with the configuration loader, an allowlist
// (entries) with the allowlist loader, anything else (GitHub workflows and steps, the pre-commit
// configuration) as YAML.
func TestReadmeYAMLExamples(t *testing.T) {
	kinds := map[string]int{}
	for _, b := range docBlocks(t) {
		if b.lang != "yaml" {
			continue
		}
		var doc any
		if err := yaml.Unmarshal([]byte(b.code), &doc); err != nil {
			t.Errorf("%s: not YAML: %v", b.where(), err)
			continue
		}
		m, _ := doc.(map[string]any)
		name := b.where()
		switch {
		case m["entries"] != nil || isEntryList(doc):
			kinds["allowlist"]++
			code := b.code
			if m == nil { // entries alone, as written under entries:
				code = "version: 2\nentries:\n  " + strings.ReplaceAll(strings.TrimRight(code, "\n"), "\n", "\n  ") + "\n"
			}
			if _, err := allowlist.Parse(name, []byte(code)); err != nil {
				t.Errorf("%s: the allowlist example does not load: %v", name, err)
			}
		case m["version"] != nil || isConfigPart(m):
			kinds["config"]++
			code := b.code
			if m["version"] == nil { // a section of a configuration
				code = "version: 2\n" + code
			}
			if _, err := config.Parse(filepath.Join(repoRoot, "ledgercheck.yaml"), []byte(code)); err != nil {
				t.Errorf("%s: the configuration example does not load: %v", name, err)
			}
			if missing := missingFiles(t, code); missing != "" {
				t.Errorf("%s: %s", name, missing)
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

// fileKeys are the keys of a configuration whose values name files (or, glob, patterns).
var fileKeys = map[string]bool{"file": true, "allowlist": true, "previous": true, "fixture": true, "files": true, "glob": true}

// missingFiles says which files a configuration example names that the repository lacks, when it
// names some it has: such an example is about this repository (the shipped files), and run as
// written from its root it must find every file; one that names only files of a repository of
// the reader's own ("" here) is not checked.
func missingFiles(t *testing.T, code string) string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(code), &doc); err != nil {
		return ""
	}
	var named []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case fileKeys[k.Value] && v.Kind == yaml.ScalarNode:
					named = append(named, v.Value)
				case fileKeys[k.Value] && v.Kind == yaml.SequenceNode:
					for _, e := range v.Content {
						named = append(named, e.Value)
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	var have, lack []string
	for _, f := range named {
		matches, _ := filepath.Glob(filepath.Join(repoRoot, f))
		if len(matches) > 0 {
			have = append(have, f)
		} else {
			lack = append(lack, f)
		}
	}
	if len(have) == 0 || len(lack) == 0 {
		return ""
	}
	return fmt.Sprintf("names %s, which the repository has, and %s, which it does not (from its root, where the example's paths lead)", strings.Join(have, ", "), strings.Join(lack, ", "))
}

// configKeys are the top-level keys of ledgercheck.yaml.
var configKeys = map[string]bool{"version": true, "artifact": true, "ports": true, "prerequisites": true, "fixture": true,
	"probes": true, "rerun": true, "lint": true, "limits": true, "postgres": true, "variants": true}

// isConfigPart reports whether m is a part of a configuration: every key a configuration's.
func isConfigPart(m map[string]any) bool {
	for k := range m {
		if !configKeys[k] {
			return false
		}
	}
	return len(m) > 0
}

// isEntryList reports whether doc is a list of allowlist entries (each with a kind).
func isEntryList(doc any) bool {
	l, ok := doc.([]any)
	for _, e := range l {
		if m, _ := e.(map[string]any); m["kind"] == nil {
			return false
		}
	}
	return ok && len(l) > 0
}

// shellCommand is the start of a line that runs a program, as a shell example begins.
var shellCommand = regexp.MustCompile(`^(\$ )?(ledgercheck|make|go|git|npm|npx|docker|psql|pg_dump|cd|export|sudo|apt-get|curl|pre-commit|mkdir|cat|d=|for|until)\b`)

// sqlStatement is the start of a line that begins an SQL statement.
var sqlStatement = regexp.MustCompile(`(?i)^(CREATE|ALTER|DROP|SELECT|INSERT|UPDATE|DELETE|GRANT|REVOKE|BEGIN|COMMIT|DO|NOTIFY|COMMENT|WITH|TRUNCATE|SET|RETURN)\b`)

// fenceLanguage guesses the language of a code block from its content: sh when its first line
// runs a program, sql when it begins with a statement and has a semicolon, yaml when it is a YAML
// mapping or sequence; "" when it cannot tell.
func fenceLanguage(code string) string {
	first := ""
	for _, l := range strings.Split(code, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "--") {
			first = t
			break
		}
	}
	switch {
	case first == "":
		return ""
	case shellCommand.MatchString(first):
		return "sh"
	case sqlStatement.MatchString(first) && strings.Contains(code, ";"):
		return "sql"
	}
	var doc any
	if yaml.Unmarshal([]byte(code), &doc) == nil {
		switch doc.(type) {
		case map[string]any, []any:
			return "yaml"
		}
	}
	return ""
}

// TestFenceLanguageMatchesContent: a block fenced as sql, yaml or sh holds that language (a
// YAML configuration or a shell command fenced as sql escapes the tests that load and run the
// examples), and every block says its language.
func TestFenceLanguageMatchesContent(t *testing.T) {
	for _, b := range docBlocks(t) {
		if b.lang == "" {
			t.Errorf("%s: a code block without a language; fence it as sql, yaml, sh or text", b.where())
			continue
		}
		guess := fenceLanguage(b.code)
		switch {
		case b.lang == "text" || guess == "" || guess == b.lang:
		case b.lang == "sh" && guess == "yaml" && shellCommand.MatchString(strings.TrimSpace(b.code)):
		default:
			t.Errorf("%s: fenced as %s, and it reads as %s", b.where(), b.lang, guess)
		}
	}
	for code, want := range map[string]string{
		"version: 2\nlint:\n  severity:\n    x: off\n": "yaml",
		"ledgercheck lint --base-schema f.sql\n":       "sh",
		"CREATE TABLE t (id int);\n":                   "sql",
		"    p_query_embedding vector(1536)\n":         "",
	} {
		if got := fenceLanguage(code); got != want {
			t.Errorf("fenceLanguage(%q) = %q, want %q", code, got, want)
		}
	}
}

// repoPath is a path an example names in the repository: under one of its directories, or one
// of its files at the top level.
var repoPath = regexp.MustCompile(`(?:^|[\s"'(=\x60])((?:migrations|testdata|docs|internal|cmd|scripts|bench|diff|introspect)/[A-Za-z0-9_.@/-]*[A-Za-z0-9_]|(?:ledgercheck|allowlist|allowlist\.reviewed|action)\.ya?ml|Makefile|CHANGELOG\.md)`)

// mdLink is a markdown link to a relative path or an anchor: the path (empty for the page
// itself) and the anchor.
var mdLink = regexp.MustCompile(`\]\(([^)#:\s]*)(?:#([^)\s]*))?\)`)

// headingSlugs returns the anchors GitHub gives the headings of a markdown text: lower case,
// punctuation but hyphens dropped, spaces as hyphens.
func headingSlugs(text string) map[string]bool {
	slugs := map[string]bool{}
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		slugs[b.String()] = true
	}
	return slugs
}

// TestExamplesNameExistingFiles: every file an example of the documentation names in the
// repository (in a code block), and every relative link of a page, exists.
func TestExamplesNameExistingFiles(t *testing.T) {
	for _, b := range docBlocks(t) {
		for _, m := range repoPath.FindAllStringSubmatch(b.code, -1) {
			if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
				t.Errorf("%s: names %s, which is not in the repository", b.where(), m[1])
			}
		}
	}
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := filepath.Join(repoRoot, filepath.Dir(f), m[1])
			if m[1] == "" {
				target = filepath.Join(repoRoot, f)
			}
			page, err := os.ReadFile(target)
			if err != nil && !errors.Is(err, syscall.EISDIR) {
				t.Errorf("%s: links to %s, which does not exist", f, m[1])
				continue
			}
			if m[2] != "" && strings.HasSuffix(target, ".md") && !headingSlugs(string(page))[m[2]] {
				t.Errorf("%s: links to %s#%s, and that page has no such heading", f, m[1], m[2])
			}
		}
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
	var files []string
	for _, f := range docFiles(t) {
		files = append(files, filepath.Join(repoRoot, f))
	}
	files = append(files, "../../CHANGELOG.md", "../../action.yml", "../../.pre-commit-hooks.yaml")
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

// relativePath is a relative path that climbs: one or more "../" and what follows them.
var relativePath = regexp.MustCompile(`(?:\.\./)+[A-Za-z0-9_.@-]+(?:/[A-Za-z0-9_.@-]+)*`)

// TestNoPathLeavesTheRepository: no file of the repository cites a file outside it (the notes
// beside the repository, `../shared/...`): every relative path that climbs with "../", in any
// tracked text file, resolves inside the repository from that file's directory, and no file
// names the notes' directory by its absolute path.
func TestNoPathLeavesTheRepository(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	list, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	n := 0
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		switch filepath.Ext(name) {
		case ".md", ".sql", ".go", ".yaml", ".yml", ".sh", ".txt", ".tmpl":
		default:
			if filepath.Base(name) != "Makefile" {
				continue
			}
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree
		}
		n++
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "/work/"+"shared") { // (split: this line is not such a name)
				t.Errorf("%s:%d: names the notes outside the repository: %s", name, i+1, strings.TrimSpace(line))
			}
			for _, p := range relativePath.FindAllString(line, -1) {
				target := filepath.Join(root, filepath.Dir(name), p)
				if target != root && !strings.HasPrefix(target, root+string(filepath.Separator)) {
					t.Errorf("%s:%d: %s leads outside the repository", name, i+1, p)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("read %d files; want the repository's", n)
	}
}
