package scratch_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// cachedStart starts an embedded cluster with the cache on and one template (1536, the Open
// Brain prerequisites), returning it and its log (complete once it is closed: a new entry is
// written while the run goes on).
func cachedStart(t *testing.T) (*scratch.Server, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	srv, err := scratch.Start(context.Background(), scratch.Options{Cache: true, Log: log,
		Templates: []scratch.TemplateSpec{{Dim: 1536}}})
	if err != nil {
		t.Fatalf("Start: %v\n%s", err, log.String())
	}
	return srv, log
}

// closeGone closes srv and fails the test unless its processes and its directory are gone.
func closeGone(t *testing.T, srv *scratch.Server) {
	t.Helper()
	if err := stopGone(srv); err != nil {
		t.Fatal(err)
	}
}

// stopGone closes srv and returns an error unless its processes and its directory are gone.
func stopGone(srv *scratch.Server) error {
	dir := srv.Dir()
	pid := scratch.SandboxPID(dir)
	if err := srv.Close(); err != nil {
		return err
	}
	return scratchtest.Gone(pid, dir)
}

// entries returns the cache's entry directories (a manifest or not) and anything else in it
// but their lock files.
func entries(t *testing.T, root string) (dirs, other []string) {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch {
		case strings.HasSuffix(e.Name(), ".lock"):
		case e.IsDir() && !strings.Contains(e.Name(), "."):
			dirs = append(dirs, filepath.Join(root, e.Name()))
		default:
			other = append(other, e.Name())
		}
	}
	return dirs, other
}

func TestCacheReusedWithFreshSecretsAndNothingAMigrationWrote(t *testing.T) {
	// The cold start: the shared build's (four runs at once, one of which built the entry).
	b := sharedBuild(t)
	if !slices.ContainsFunc(b.logs[:], func(l *syncBuffer) bool { return strings.Contains(l.String(), "cached in") }) {
		t.Errorf("a cold start does not save the entry:\n%s", b.logs[0].String())
	}
	dirs, other := entries(t, b.root)
	if len(dirs) != 1 || len(other) != 0 {
		t.Fatalf("cache holds %v and %v, want one entry", dirs, other)
	}
	if st, err := os.Stat(dirs[0]); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("entry mode = %v (%v), want 0700", st.Mode().Perm(), err)
	}
	secret, err := os.ReadFile(filepath.Join(dirs[0], "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dirs[0], "secret")); st.Mode().Perm() != 0o600 {
		t.Errorf("secret mode = %v, want 0600", st.Mode().Perm())
	}
	// The warm starts, from a copy of that entry in a cache of the test's own.
	root := t.TempDir()
	t.Setenv(scratch.CacheDirEnv, root)
	copyEntry(t, root)
	ctx := context.Background()

	srv, log := cachedStart(t)
	defer closeGone(t, srv)
	if !strings.Contains(log.String(), "copied from the cache") {
		t.Fatalf("a warm start does not copy the entry:\n%s", log.String())
	}
	// The entry's superuser password no longer opens the run's cluster.
	cfg := srv.AdminConfig()
	cfg.Password = strings.TrimSpace(string(secret))
	if conn, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		conn.Close(ctx)
		t.Error("the cached superuser password still logs in")
	}
	// The template is there, and what user SQL writes stays in the run's copy.
	db := scratchtest.Exec
	d, err := srv.NewDatabase(ctx, 1536)
	if err != nil {
		t.Fatal(err)
	}
	db(t, d, "x.sql", "CREATE TABLE public.written_by_a_migration (id int); CREATE ROLE made_by_a_migration;")
	conn := scratchtest.Connect(t, d)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'thoughts'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("public.thoughts in a database of the cached template: %d (%v), want 1", n, err)
	}
	closeGone(t, srv)

	srv, _ = cachedStart(t)
	defer closeGone(t, srv)
	d, err = srv.NewDatabase(ctx, 1536)
	if err != nil {
		t.Fatal(err)
	}
	conn = scratchtest.Connect(t, d)
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_tables WHERE tablename = 'written_by_a_migration') + (SELECT count(*) FROM pg_roles WHERE rolname = 'made_by_a_migration')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("what a migration wrote in an earlier run: %d objects (%v), want none", n, err)
	}
}

// A migration in the very run that builds the cache entry (the entry is written beside the run)
// cannot put anything into it: not a role, not a schema, not a setting of the install role,
// which every later run would start with.
func TestCacheEntryBuiltBesideAMigrationHoldsNothingOfIt(t *testing.T) {
	scratchtest.Server(t)
	t.Setenv(scratch.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	settings := func(srv *scratch.Server) string {
		d, err := srv.NewDatabase(ctx, 1536)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := scratchtest.Connect(t, d).QueryRow(ctx, `SELECT string_agg(setrole::regrole || '=' || setconfig::text, ';' ORDER BY setrole::regrole::text)
			|| ' roles:' || (SELECT count(*) FROM pg_roles WHERE rolname = 'persisted')
			|| ' schemas:' || (SELECT count(*) FROM pg_namespace WHERE nspname = 'persisted')
			FROM pg_db_role_setting`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	srv, log := cachedStart(t) // cold: the entry is built and written while this run goes on
	defer closeGone(t, srv)
	clean := settings(srv)
	d, err := srv.NewDatabase(ctx, 1536)
	if err != nil {
		t.Fatal(err)
	}
	// Settings of the install role are stopped outright (warden.go); a role and a schema are not.
	if err := sqlscript.ExecFile(ctx, d, "evil.sql", []byte("ALTER ROLE postgres SET search_path TO persisted, public;\n")); err == nil {
		t.Fatal("a setting of the install role was not stopped")
	}
	scratchtest.Exec(t, d, "evil.sql", `CREATE ROLE persisted; CREATE SCHEMA persisted;`)
	if got := settings(srv); got == clean {
		t.Fatalf("the migration changed nothing the test can see: %s", got)
	}
	closeGone(t, srv)
	if !strings.Contains(log.String(), "cached in") {
		t.Fatalf("the cold run did not save the entry:\n%s", log.String())
	}

	srv, log = cachedStart(t)
	defer closeGone(t, srv)
	if !strings.Contains(log.String(), "copied from the cache") {
		t.Fatalf("a warm start does not copy the entry:\n%s", log.String())
	}
	if got := settings(srv); got != clean {
		t.Errorf("a run from the cache starts with what a migration wrote:\n got %s\nwant %s", got, clean)
	}
}

func TestCacheCorruptedOrHalfWrittenEntryIsRebuilt(t *testing.T) {
	scratchtest.Server(t)
	root := t.TempDir()
	t.Setenv(scratch.CacheDirEnv, root)
	entry := copyEntry(t, root) // a complete entry, as a cold run leaves it

	// One byte of the entry's files changed.
	victim := filepath.Join(entry, "data.bin")
	b, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(victim, b, 0o600); err != nil {
		t.Fatal(err)
	}
	srv, log := cachedStart(t)
	closeGone(t, srv)
	if !strings.Contains(log.String(), "unusable") || !strings.Contains(log.String(), "cached in") {
		t.Errorf("a corrupted entry is not detected and rebuilt:\n%s", log.String())
	}
	if got, _ := os.ReadFile(victim); bytes.Equal(got, b) {
		t.Error("the corrupted data is still in the entry")
	}

	// A data file cut short.
	if err := os.Truncate(victim, 1<<20); err != nil {
		t.Fatal(err)
	}
	srv, log = cachedStart(t)
	closeGone(t, srv)
	if !strings.Contains(log.String(), "not as long as its manifest") || !strings.Contains(log.String(), "cached in") {
		t.Errorf("a truncated entry is not detected and rebuilt:\n%s", log.String())
	}

	// An entry whose manifest was never written (a builder killed before it) is rebuilt.
	if err := os.Remove(filepath.Join(entry, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	srv, log = cachedStart(t)
	closeGone(t, srv)
	if !strings.Contains(log.String(), "cached in") {
		t.Errorf("an entry without its manifest is not rebuilt:\n%s", log.String())
	}
	srv, log = cachedStart(t)
	if !strings.Contains(log.String(), "copied from the cache") {
		t.Errorf("the rebuilt entry is not used:\n%s", log.String())
	}
	closeGone(t, srv)

	// An entry that copies but does not start (here: its password is not the cluster's) goes,
	// and the run starts from scratch.
	if err := os.WriteFile(filepath.Join(entry, "secret"), []byte("not-the-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, log = cachedStart(t)
	if !strings.Contains(log.String(), "did not start") {
		t.Errorf("a cached cluster that does not start is not reported:\n%s", log.String())
	}
	if _, err := srv.NewDatabase(context.Background(), 1536); err != nil {
		t.Errorf("after the fallback: %v", err)
	}
	closeGone(t, srv)
	if _, err := os.Stat(filepath.Join(entry, "manifest.json")); err == nil {
		t.Error("the entry that did not start is still there")
	}
}

// Four runs started at once on an empty cache (the shared build, cache_shared_test.go) all
// work, build the entry once and leave it complete, and nothing else, in the cache.
func TestCacheFourColdRunsAtOnce(t *testing.T) {
	b := sharedBuild(t)
	built := 0
	for i, err := range b.errs {
		if err != nil {
			t.Errorf("run %d: %v\n%s", i, err, b.logs[i].String())
		}
		built += strings.Count(b.logs[i].String(), "cached in")
	}
	if built != 1 {
		t.Errorf("the four runs saved the entry %d times, want once", built)
	}
	dirs, other := entries(t, b.root)
	if len(dirs) != 1 || len(other) != 0 {
		t.Fatalf("cache holds %v and %v, want one entry and nothing else", dirs, other)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "manifest.json")); err != nil {
		t.Errorf("the entry has no manifest: %v", err)
	}
	// The entry is valid: a fifth run copies it (from a copy, in a cache of the test's own).
	t.Setenv(scratch.CacheDirEnv, t.TempDir())
	copyEntry(t, os.Getenv(scratch.CacheDirEnv))
	srv, log := cachedStart(t)
	if !strings.Contains(log.String(), "copied from the cache") {
		t.Errorf("the entry four runs left is not used:\n%s", log.String())
	}
	closeGone(t, srv)
	if _, err := scratch.CleanCache(); err != nil {
		t.Fatal(err)
	}
	if info, err := scratch.ReadCacheInfo(); err != nil || info.Entries != 0 {
		t.Errorf("after cache clean: %+v (%v), want no entry", info, err)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent log lines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// describedStart is cachedStart with a template whose Base describes it: the description lists
// the template's tables (what a copy starts with) and counts the calls.
func describedStart(t *testing.T, calls *int) (*scratch.Server, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	srv, err := scratch.Start(context.Background(), scratch.Options{Cache: true, Log: log,
		Templates: []scratch.TemplateSpec{{Dim: 1536, Base: describing(func() { *calls++ })}}})
	if err != nil {
		t.Fatalf("Start: %v\n%s", err, log.String())
	}
	return srv, log
}

// A template's description is made once, when the template is built, kept in the cache entry
// and given to later runs without describing again; a description damaged in the entry is
// detected and the entry rebuilt.
func TestCacheKeepsTheTemplatesDescription(t *testing.T) {
	// The build: the shared one, four runs at once of which one built the entry.
	b := sharedBuild(t)
	first := b.desc[0]
	for i, d := range b.desc {
		if !bytes.Equal(d, first) {
			t.Errorf("run %d of the build has the description %q, run 0 %q", i, d, first)
		}
	}
	if n := b.described.Load(); n != 1 || !strings.Contains(string(first), "thoughts") {
		t.Fatalf("building the entry described the template %d times, as %q; want once, with the Open Brain tables", n, first)
	}
	root := t.TempDir()
	t.Setenv(scratch.CacheDirEnv, root)
	entry := copyEntry(t, root)

	calls := 0
	srv, log := describedStart(t, &calls)
	if !strings.Contains(log.String(), "copied from the cache") {
		t.Fatalf("the entry is not used:\n%s", log.String())
	}
	if got := srv.TemplateDescription(1536, scratch.Base{}); calls != 0 || !bytes.Equal(got, first) {
		t.Errorf("from the cache: %d calls, description %q; want none and %q", calls, got, first)
	}
	closeGone(t, srv)

	// One byte of the description changed in the manifest.
	manifest := filepath.Join(entry, "manifest.json")
	mb, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	tpl := m["templates"].([]any)[0].(map[string]any)
	desc, err := base64.StdEncoding.DecodeString(tpl["description"].(string))
	if err != nil {
		t.Fatal(err)
	}
	desc[0] ^= 0x01
	tpl["description"] = base64.StdEncoding.EncodeToString(desc)
	if mb, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, mb, 0o600); err != nil {
		t.Fatal(err)
	}
	srv, log = describedStart(t, &calls)
	got := srv.TemplateDescription(1536, scratch.Base{})
	closeGone(t, srv)
	if !strings.Contains(log.String(), "description of") || !strings.Contains(log.String(), "cached in") {
		t.Errorf("a damaged description is not detected and the entry rebuilt:\n%s", log.String())
	}
	if calls != 1 || !bytes.Equal(got, first) {
		t.Errorf("after the rebuild: %d calls, description %q; want 1 call and %q", calls, got, first)
	}
}
