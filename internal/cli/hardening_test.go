package cli

// Hardening: a panic is one line and still cleans up; bad input of every kind is one line with
// the documented exit code, never a panic or a Go stack trace.

import (
	"context"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// TestMain starts the package's scratch server (the snapshot command's tests use it) and stops
// the shared --dsn server the hardening tests may start.
func TestMain(m *testing.M) { os.Exit(scratchtest.Main(m)) }

// hostDSN returns a DSN for the maintenance database of the test binary's --dsn stand-in server
// (see scratchtest.SharedDSNServer), with extra appended.
func hostDSN(t *testing.T, extra string) string {
	t.Helper()
	return scratchtest.SharedDSNServer(t).DSN + extra
}

// scratchDatabases lists the databases named ledgercheck_* on the server of dsn.
func scratchDatabases(t *testing.T, dsn string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, _ := conn.Query(context.Background(), `SELECT datname FROM pg_database WHERE datname LIKE 'ledgercheck\_%' ORDER BY 1`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// panicAfter is what the test-only command "test-panic" saw before it panicked.
var panicAfter struct {
	dir string
	db  string
}

// test-panic starts a scratch server the way every command does (defer srv.Close()), creates a
// database and panics in the command's goroutine.
func init() {
	commands = append(commands, func(g *globals) *cobra.Command {
		var sf serverFlags
		cmd := &cobra.Command{Use: "test-panic", Hidden: true, RunE: func(cmd *cobra.Command, _ []string) error {
			srv, err := g.startServer(cmd.Context(), &sf, nil)
			if err != nil {
				return err
			}
			defer srv.Close()
			db, err := srv.NewEnvDatabase(cmd.Context())
			if err != nil {
				return err
			}
			panicAfter.dir, panicAfter.db = srv.Dir(), db.Name
			var m map[string]bool
			//lint:ignore SA5000 the test needs a runtime panic in the command's goroutine, and this is one
			m[db.Name] = true // assignment to entry in nil map
			return nil
		}}
		addServerFlags(cmd, &sf)
		return cmd
	})
}

// A panic in a command is recovered by Run: the deferred cleanups run (the embedded cluster is
// stopped and removed; on a --dsn server the database is dropped), and the panic is one line,
// exit 3, without a stack trace.
func TestPanicIsOneLineAndCleansUp(t *testing.T) {
	scratchtest.NeedPostgres(t)
	dsn := hostDSN(t, "")
	for _, mode := range []string{"embedded", "dsn"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"test-panic", "-q"}
			if mode == "dsn" {
				args = append(args, "--dsn", dsn)
			}
			panicAfter.dir, panicAfter.db = "", ""
			code, out, errs := runCLI(t, args...)
			if code != ExitEnv || out != "" || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "goroutine") ||
				!strings.HasPrefix(errs, "ledgercheck: internal error: assignment to entry in nil map (in cli.init.") || !strings.Contains(errs, "please report") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 3 and one internal error line", code, out, errs)
			}
			if panicAfter.db == "" {
				t.Fatal("the command did not get as far as its panic")
			}
			if mode == "embedded" {
				if _, err := os.Stat(panicAfter.dir); !os.IsNotExist(err) {
					t.Errorf("cluster directory %s remains after the panic", panicAfter.dir)
				}
			} else if dbs := scratchDatabases(t, dsn); len(dbs) != 0 {
				t.Errorf("databases %v remain on the --dsn server after the panic", dbs)
			}
		})
	}
}

// badInputFiles writes the bad inputs into dir and returns their paths by name.
func badInputFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"empty.sql":   "",
		"nonutf8.sql": "SELECT 1;\n\xff\xfe\n",
		"nul.sql":     "SELECT 1;\n\x00\n",
		"meta.sql":    "\\i other.sql\n\\set x 1\nCREATE TABLE IF NOT EXISTS public.t (id int);\nNOTIFY pgrst, 'reload schema';\n",
		// The table exists when COPY runs: without the check, the install would wait for data.
		"copy.sql":           "CREATE TABLE IF NOT EXISTS public.t (id int);\nCOPY public.t FROM STDIN;\nNOTIFY pgrst, 'reload schema';\n",
		"nested.sql":         "SELECT " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000) + ";\n",
		"al_malformed.yaml":  "version: 2\nentries: [\n  - kind: table\n",
		"al_type.yaml":       "version: one\nentries: []\n",
		"al_unknown.yaml":    "version: 2\nentries:\n  - kind: table\n    objekt: public.t\n",
		"al_utf8.yaml":       "version: 2\nentries: \xff\xfe\n",
		"al_nul.yaml":        "version: 2\nentries:\x00\n",
		"cfg_type.yaml":      "version: 2\n# the artifact\nartifact: {file: a.sql, dim: [1]}\n",
		"cfg_malformed.yaml": "version: 2\n# the artifact\nartifact:\n    file: a.sql\n   dim: 3\n",
		"cfg_unknown.yaml":   "version: 2\nartefact: {}\n",
		"cfg_duration.yaml":  "version: 2\nlimits:\n  statement_timeout: soon\n",
		"cfg_utf8.yaml":      "\xff\xfeversion: 2\n",
	}
	paths := map[string]string{"missing.sql": dir + "/missing.sql", "adir": dir + "/adir"}
	if err := os.Mkdir(paths["adir"], 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		paths[name] = dir + "/" + name
		if err := os.WriteFile(paths[name], []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 50 MB of statements, written in chunks.
	paths["big.sql"] = dir + "/big.sql"
	fh, err := os.Create(paths["big.sql"])
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("INSERT INTO public.agent_memories (content) VALUES ('x');\n", 1<<14))
	for n := 0; n < 50<<20; n += len(chunk) {
		if _, err := fh.Write(chunk[:min(len(chunk), 50<<20-n)]); err != nil {
			t.Fatal(err)
		}
	}
	fh.Close()
	return paths
}

// TestBadInput runs every command on every bad input where it applies. Exit 2 and 3 are one line
// on stderr (file:line for the YAML files) with nothing on stdout; exit 1 is a report on stdout
// that names the rule. Never a panic, never a stack trace. Run with -v to see each output.
func TestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Postgres")
	}
	f := badInputFiles(t, t.TempDir())
	dsn := hostDSN(t, "")
	type row struct {
		args []string
		code int
		want string // a regular expression, in stderr for exit 2 and 3, in stdout or stderr for exit 0 and 1
	}
	var rows []row
	add := func(code int, want string, args ...string) { rows = append(rows, row{args, code, want}) }
	server := []string{"-q", "--dsn", dsn}
	fileErrors := map[string]string{
		"missing.sql": `missing\.sql: no such file$`,
		"adir":        `adir: is a directory, not a migration file$`,
		"big.sql":     `big\.sql: the file is 50\.0 MiB; ledgercheck reads migrations of at most 4 MiB`,
	}
	for name, want := range fileErrors {
		if name == "adir" {
			add(ExitInput, `adir: the directory holds no \.sql file$`, "lint", f[name]) // lint takes directories
		} else {
			add(ExitInput, want, "lint", f[name])
		}
		add(ExitInput, want, append([]string{"snapshot", "--install", f[name]}, server...)...)
		add(ExitInput, want, append([]string{"rerun", f[name], "--dim", "1536"}, server...)...)
		add(ExitInput, want, append([]string{"parity", "--config", repoConfig, "--artifact", f[name]}, server...)...)
		add(ExitInput, want, append([]string{"check", "--config", repoConfig, "--port", f[name]}, server...)...)
	}
	// Content: lint findings (exit 1); an install that fails is exit 1 too.
	add(ExitFindings, `empty\.sql:1:1: error: the file is empty; it must end with NOTIFY pgrst, 'reload schema' \[missing-notify-reload\]`, "lint", f["empty.sql"])
	add(ExitFindings, `nonutf8\.sql:2:1: error: the file contains invalid UTF-8; .*\[parse-error\]`, "lint", f["nonutf8.sql"])
	add(ExitFindings, `nul\.sql:2:1: error: the file contains a NUL byte; .*\[parse-error\]`, "lint", f["nul.sql"])
	add(ExitFindings, `meta\.sql:1:1: error: \\i other\.sql is psql syntax, not SQL; .*\[unsupported-statement\]`, "lint", f["meta.sql"])
	add(ExitFindings, `copy\.sql:2:1: error: COPY \.\.\. FROM STDIN needs psql to supply the data .*\[unsupported-statement\]`, "lint", f["copy.sql"])
	add(ExitFindings, `nested\.sql:1:1: error: expression nesting of 10000 exceeds ledgercheck's limit of 2000; .*\[too-complex\]`, "lint", f["nested.sql"])
	install := func(name string) []string {
		return append([]string{"snapshot", "--install", f[name], "--footprint"}, server...)
	}
	add(ExitOK, `no changes`, install("empty.sql")...)
	add(ExitFindings, `nonutf8\.sql:2:1: syntax error: the file contains invalid UTF-8`, install("nonutf8.sql")...)
	add(ExitFindings, `nul\.sql:2:1: syntax error: the file contains a NUL byte`, install("nul.sql")...)
	add(ExitFindings, `meta\.sql:1:1: syntax error: \\i other\.sql is psql syntax, not SQL; the file cannot be installed`, install("meta.sql")...)
	add(ExitFindings, `copy\.sql:2:1: syntax error: COPY \.\.\. FROM STDIN needs psql to supply the data; the file cannot be installed`, install("copy.sql")...)
	add(ExitFindings, `nested\.sql:1:1: expression nesting of 10000 exceeds ledgercheck's limit of 2000`, install("nested.sql")...)
	add(ExitFindings, `copy\.sql:2:1: error: .*COPY \.\.\. FROM STDIN needs psql .*\[rerun-install-failed\]`, append([]string{"rerun", f["copy.sql"], "--dim", "1536", "--no-fixture"}, server...)...)
	add(ExitFindings, `(?m)^== install artifact ==\n.*nul\.sql:2:1: error: the migration does not install: the file contains a NUL byte; migrations must be UTF-8 text \[install-failed\]`, append([]string{"parity", "--config", repoConfig, "--artifact", f["nul.sql"]}, server...)...)
	add(ExitFindings, `(?s)unsupported-statement.*meta\.sql:1:1: error: the migration does not install: \\i other\.sql is psql syntax`, append([]string{"check", "--config", repoConfig, "--port", f["meta.sql"], "--times", "2"}, server...)...)
	// YAML: file:line, exit 2.
	for name, want := range map[string]string{
		"al_malformed.yaml": `al_malformed\.yaml:2:10: did not find expected node content$`,
		"al_type.yaml":      `al_type\.yaml:1:10: invalid value "one": want a whole number$`,
		"al_unknown.yaml":   `al_unknown\.yaml:4:5: unknown key objekt \(did you mean object\?\)`,
		"al_utf8.yaml":      `al_utf8\.yaml:2: invalid UTF-8 \(byte 0xff\); the file must be UTF-8 text$`,
		"al_nul.yaml":       `al_nul\.yaml:2: control character U\+0000; the file must be printable text$`,
	} {
		add(ExitInput, want, "allowlist", "check", f[name])
		add(ExitInput, want, "check", "--config", repoConfig, "--allowlist", f[name])
	}
	for name, want := range map[string]string{
		"cfg_type.yaml":      `cfg_type\.yaml:3:11: invalid value \(a list\): want a whole number$`,
		"cfg_malformed.yaml": `cfg_malformed\.yaml:5:4: did not find expected key$`,
		"cfg_unknown.yaml":   `cfg_unknown\.yaml:2:1: unknown key artefact \(did you mean artifact\?\)`,
		"cfg_duration.yaml":  `cfg_duration\.yaml:3:22: invalid value "soon": want a duration such as 60s or 2m$`,
		"cfg_utf8.yaml":      `cfg_utf8\.yaml:1: invalid UTF-8 \(byte 0xff\)`,
	} {
		add(ExitInput, want, "check", "--config", f[name])
		add(ExitInput, want, "parity", "--config", f[name])
	}
	// Servers.
	add(ExitEnv, `^ledgercheck: cannot connect to --dsn server: .*refused`, "check", "--config", repoConfig, "-q", "--dsn", "postgres://ledgercheck@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=3")
	add(ExitInput, `^ledgercheck: --dsn: cannot parse`, "check", "--config", repoConfig, "-q", "--dsn", "postgres://%zz")
	add(ExitInput, `^ledgercheck: parsing the connection string: cannot parse`, "snapshot", "-q", "--dsn", "postgres://%zz")
	add(ExitEnv, `--dsn server is read-only for role .* \(transaction_read_only = on\)`, "check", "--config", repoConfig, "-q", "--dsn", dsn+" options='-c default_transaction_read_only=on'")

	for _, r := range rows {
		code, out, errs := runCLI(t, r.args...)
		where := errs
		if r.code <= ExitFindings {
			where = out + errs // a report, or the error of a command without one (snapshot)
		}
		t.Logf("%v: exit %d\n  stderr: %s  stdout: %s", r.args, code, errs, firstLines(out, 3))
		ok := code == r.code && regexpMatch(r.want, where) && !strings.Contains(errs+out, "goroutine ") && !strings.Contains(errs+out, "panic")
		if r.code >= ExitInput {
			ok = ok && out == "" && strings.Count(errs, "\n") == 1
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", r.args, code, firstLines(out, 20), errs, r.code, r.want)
		}
	}
	if dbs := scratchDatabases(t, dsn); len(dbs) != 0 {
		t.Errorf("databases %v remain on the --dsn server", dbs)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...\n")
	}
	return strings.Join(lines, "")
}

func regexpMatch(re, s string) bool { return regexp.MustCompile("(?m)" + re).MatchString(s) }

// fakePostgresWithoutVector builds a PostgreSQL installation without pgvector: the postgres and
// initdb binaries copied (they find their share and lib directories relative to themselves),
// the lib directory linked file by file and the share directory copied, both minus vector.*.
// It returns the bin directory for --pg-bin.
func fakePostgresWithoutVector(t *testing.T) string {
	t.Helper()
	bin, err := scratch.FindBinDir("", 0)
	if err != nil {
		scratchtest.Unavailable(t, err)
	}
	share := "/usr/share/postgresql/15"
	if out, err := exec.Command(filepath.Join(bin, "pg_config"), "--sharedir").Output(); err == nil {
		share = strings.TrimSpace(string(out))
	}
	root, err := os.MkdirTemp("", "lcfakepg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755) // the server runs as the postgres OS user when the tests run as root
	copyFile := func(src, dst string, mode os.FileMode) {
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fakeBin := filepath.Join(root, bin)
	os.MkdirAll(fakeBin, 0o755)
	for _, name := range []string{"postgres", "initdb"} {
		copyFile(filepath.Join(bin, name), filepath.Join(fakeBin, name), 0o755)
	}
	lib := filepath.Join(filepath.Dir(bin), "lib")
	entries, err := os.ReadDir(lib)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, lib), 0o755)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "vector") {
			os.Symlink(filepath.Join(lib, e.Name()), filepath.Join(root, lib, e.Name()))
		}
	}
	err = filepath.WalkDir(share, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(root, p)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case strings.HasPrefix(d.Name(), "vector"), d.Type()&fs.ModeSymlink != 0:
			return nil
		}
		copyFile(p, dst, 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fakeBin
}

// A PostgreSQL without pgvector is an environment error that says how to get it, for every
// command that starts the embedded cluster.
func TestNoPgvector(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Postgres")
	}
	scratchtest.NeedPostgres(t)
	pgBin := fakePostgresWithoutVector(t)
	// The command names the version it would install for: the default (15), or 17's flag when
	// the tests run on 17 (LEDGERCHECK_PG).
	setup := "ledgercheck setup"
	if v := os.Getenv("LEDGERCHECK_PG"); v != "" && v != "15" {
		setup += " --pg " + v
	}
	want := regexp.MustCompile(`^ledgercheck: pgvector is not installed for this PostgreSQL \(no vector\.control in its extension directory\): run ` + regexp.QuoteMeta("`"+setup+"`") + ` as root\n$`)
	for _, args := range [][]string{
		{"check", "--config", repoConfig},
		{"snapshot", "--dim", "1024"},
	} {
		code, out, errs := runCLI(t, append(args, "-q", "--pg-bin", pgBin)...)
		t.Logf("%v: exit %d, stderr %s", args, code, errs)
		if code != ExitEnv || out != "" || !want.MatchString(errs) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 3 and %s", args, code, out, errs, want)
		}
	}
}
