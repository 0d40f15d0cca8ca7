package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretToken is the content of the file outside the repository: a migration that reaches it
// would be parsed, and the parser's error quotes its first token.
const secretToken = "zq9_private_token_OUTSIDE"

// TestInputsStayInTheRepository attacks as a pull request would: it controls the repository's
// content (the configuration, symbolic links, directories) and CI runs a fixed command in it. Every
// way of naming a file outside the repository (a symbolic link as the migration, the previous
// version, the allowlist, the fixture, a prerequisite file, the configuration itself; a ../ path
// and an absolute path in the configuration; a symbolic link to a directory on the path; a
// dangling link; a symbolic link named on the command line) is refused with one line and exit 2,
// and the content of the 0600 file outside is never printed. With --allow-outside-repo each is
// read: the refusal is what kept it out. A path outside the repository typed on the command line
// is the user's own choice, and read.
func TestInputsStayInTheRepository(t *testing.T) {
	repo, secret := repositoryWithLinksOut(t)
	// config writes a configuration into the repository whose artifact section and rest are
	// given, and returns its path.
	n := 0
	config := func(artifact, rest string) string {
		n++
		p := filepath.Join(repo, "cfg"+strings.Repeat("x", n)+".yaml")
		writeFile(t, p, "version: 2\nartifact: "+artifact+"\n"+rest, 0o644)
		return p
	}
	ok := "{file: migrations/a.sql, dim: 1536}"
	noServer := []string{"-q", "--dsn", "postgres://ledgercheck@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1"}
	check := func(cfg string) []string { return append([]string{"check", "--config", cfg}, noServer...) }
	for _, tc := range []struct {
		name string
		args []string
		// allowed is the exit code once --allow-outside-repo lets the file be read: 1 for lint's
		// parse error, 2 for an allowlist that does not parse, 3 for a command that then fails to
		// reach the server.
		allowed int
	}{
		{"migration symlink in the configuration", check(config("{file: migrations/evil.sql, dim: 1536}", "")), 3},
		{"relative migration symlink", check(config("{file: migrations/relative.sql, dim: 1536}", "")), 3},
		{"../ path in the configuration", check(config("{file: ../outside/secret.sql, dim: 1536}", "")), 3},
		{"absolute path in the configuration", check(config("{file: "+secret+", dim: 1536}", "")), 3},
		{"symlinked directory on the path", check(config("{file: linked/secret.sql, dim: 1536}", "")), 3},
		{"previous version symlink", check(config("{file: migrations/a.sql, dim: 1536, previous: migrations/evil.sql}", "")), 3},
		{"allowlist symlink", check(config(ok, "ports: [{file: migrations/a.sql, dim: 1536, allowlist: migrations/evil.sql}]\n")), 2}, // read, and not an allowlist
		{"fixture symlink", check(config(ok, "fixture: migrations/evil.sql\n")), 3},
		{"prerequisite symlink", check(config(ok, "prerequisites: {files: [linked/secret.sql]}\n")), 3},
		{"prerequisite for lint --install", append([]string{"lint", "--install", "--config", config(ok, "prerequisites: {files: [migrations/evil.sql]}\n"), "migrations/a.sql"}, noServer...), 3},
		{"configuration symlink", check("outside.yaml"), 3},
		{"lint of a symlink in the repository", []string{"lint", "-q", "migrations/evil.sql"}, 1},
		{"lint of a path through a symlinked directory", []string{"lint", "-q", "linked/secret.sql"}, 1},
		{"check --artifact symlink", append([]string{"check", "--config", config(ok, ""), "--artifact", "migrations/evil.sql"}, noServer...), 3},
		{"rerun of a symlink", append([]string{"rerun", "migrations/evil.sql", "--no-fixture"}, noServer...), 3},
		{"snapshot --install of a symlink", append([]string{"snapshot", "--install", "migrations/relative.sql"}, noServer...), 3},
		{"allowlist check of a symlink", []string{"allowlist", "check", "migrations/evil.sql"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) { checkOutsideRefused(t, tc.args, tc.allowed) })
	}
	checkPathsTypedOrInside(t, repo, secret)
}

// repositoryWithLinksOut makes a repository (the working directory from now on) beside a
// directory outside it that holds a 0600 file, secret, and a configuration naming it; the
// repository holds a clean migration and symbolic links out: to secret (absolute and relative),
// to a file that does not exist, to the directory and to its configuration.
func repositoryWithLinksOut(t *testing.T) (repo, secret string) {
	t.Helper()
	base := t.TempDir()
	repo = filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "migrations"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(outside, "secret.sql")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, secret, secretToken+" = hunter2;\n", 0o600)
	writeFile(t, filepath.Join(outside, "ledgercheck.yaml"), "version: 2\nartifact: {file: "+secret+", dim: 1536}\n", 0o600)
	writeFile(t, filepath.Join(repo, "migrations", "a.sql"), cleanSQL, 0o644)
	link(secret, "migrations/evil.sql")                         // an absolute link
	link("../../outside/secret.sql", "migrations/relative.sql") // a relative one
	link(filepath.Join(outside, "gone.sql"), "migrations/dangling.sql")
	link(outside, "linked") // a directory
	link(filepath.Join(outside, "ledgercheck.yaml"), "outside.yaml")
	t.Chdir(repo)
	return repo, secret
}

// writeFile writes content to path with mode.
func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// checkOutsideRefused fails unless args are refused with one line that names
// --allow-outside-repo, exit 2, and without the secret's content, and unless with
// --allow-outside-repo they read the file and exit allowed.
func checkOutsideRefused(t *testing.T, args []string, allowed int) {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != ExitInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "outside the repository") || !strings.Contains(errs, "--allow-outside-repo") {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line that says the file is outside the repository and names --allow-outside-repo", args, code, firstLines(out, 5), errs)
	}
	if strings.Contains(out+errs, secretToken) {
		t.Errorf("%v printed the content of the file outside the repository: %q", args, out+errs)
	}
	code, out, errs = runCLI(t, append(args, "--allow-outside-repo")...)
	if code != allowed || strings.Contains(errs, "outside the repository") {
		t.Errorf("%v --allow-outside-repo: exit %d, stdout %q, stderr %q; want exit %d, the file read", args, code, firstLines(out, 5), firstLines(errs, 5), allowed)
	}
}

// checkPathsTypedOrInside fails unless a dangling link out of repo is refused as outside, the
// secret typed on the command line is read, and files inside (one through a link that stays
// inside) are read.
func checkPathsTypedOrInside(t *testing.T, repo, secret string) {
	t.Helper()
	// A dangling link that leads outside is refused like any other, rather than answering
	// "no such file" about a path outside the repository.
	code, _, errs := runCLI(t, "lint", "-q", "migrations/dangling.sql")
	if code != ExitInput || !strings.Contains(errs, "outside the repository") {
		t.Errorf("lint of a dangling link out of the repository: exit %d, stderr %q; want it refused as outside", code, errs)
	}
	// A path outside the repository typed on the command line is the user's choice: read.
	if code, out, errs := runCLI(t, "lint", "-q", secret); code != ExitFindings || strings.Contains(errs, "outside the repository") {
		t.Errorf("lint %s (typed): exit %d, stdout %q, stderr %q; want it linted (exit 1)", secret, code, firstLines(out, 5), errs)
	}
	// A file inside, and a symbolic link that stays inside, are read as before.
	if err := os.Symlink("a.sql", filepath.Join(repo, "migrations", "inside.sql")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "lint", "-q", "migrations/a.sql", "migrations/inside.sql"); code != ExitOK {
		t.Errorf("lint of files inside the repository: exit %d, stdout %q, stderr %q; want 0", code, firstLines(out, 5), errs)
	}
}

// TestCommandsReadThroughTheScope keeps the confinement a class: the commands read the files they
// are given only through an input.Scope (the configuration's, or the working directory's), never
// with input.ReadFile, input.Check or os.ReadFile directly, so a command added later cannot
// read a file the repository points outside of.
func TestCommandsReadThroughTheScope(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"input.ReadFile(", "input.Check(", "os.ReadFile(", "allowlist.Load("} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s calls %s: read through the configuration's Scope (cfg.Scope) or g.scope()", f, call)
			}
		}
	}
}
