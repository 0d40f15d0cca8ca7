package scratch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// The package's one cold build of the cache entry that cachedStart and describedStart use (the
// same key: a Describe is not part of it). Building an entry (initdb, the roles, the environment
// and the Open Brain template) is the costly part of the cache tests, so it is done once: by
// four runs started at once on an empty cache, each with a template that describes itself, which
// is TestCacheFourColdRunsAtOnce's case and the build TestCacheKeepsTheTemplatesDescription
// counts. Nothing runs on that cache afterwards: the tests that use, corrupt or alter an entry
// work on a copy of it (copyEntry), each in a cache of its own.
var shared coldBuild

// coldBuild is the shared build: what its four runs did, and the cache they left.
type coldBuild struct {
	once      sync.Once
	root      string         // the cache the four runs shared
	errs      [4]error       // each run's error (start, a database, a query, closing)
	logs      [4]*syncBuffer // each run's log
	desc      [4][]byte      // each run's description of its template
	described atomic.Int32   // calls of Describe, all four runs together
	err       error          // the build could not be set up
}

// sharedBuild returns the package's cold build, made by the first test that asks for it.
func sharedBuild(t *testing.T) *coldBuild {
	t.Helper()
	scratchtest.Server(t) // skip or fail like the others when Postgres is unavailable
	shared.once.Do(buildShared)
	if shared.err != nil {
		t.Fatalf("building the shared cache entry: %v", shared.err)
	}
	return &shared
}

// describing is a Base whose Describe lists the template's tables (what a copy starts with) and
// counts its calls in n.
func describing(n func()) scratch.Base {
	return scratch.Base{Describe: func(ctx context.Context, conn *pgx.Conn, db *scratch.Database) ([]byte, error) {
		n()
		var tables string
		err := conn.QueryRow(ctx, `SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
			WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`).Scan(&tables)
		return []byte(tables), err
	}}
}

// buildShared starts four cached runs at once on a new, empty cache, each making a database of
// the template and reading the Open Brain table in it, then closes them.
func buildShared() {
	root, err := os.MkdirTemp("", "lc-test-shared-cache-")
	if err != nil {
		shared.err = err
		return
	}
	shared.root = filepath.Join(root, "cache")
	// The tests that ask for the build are not parallel (they set the cache's variable too).
	prev := os.Getenv(scratch.CacheDirEnv)
	os.Setenv(scratch.CacheDirEnv, shared.root)
	defer os.Setenv(scratch.CacheDirEnv, prev)
	ctx := context.Background()
	base := describing(func() { shared.described.Add(1) })
	var wg sync.WaitGroup
	for i := range shared.errs {
		shared.logs[i] = &syncBuffer{}
		wg.Go(func() {
			srv, err := scratch.Start(ctx, scratch.Options{Cache: true, Log: shared.logs[i],
				Templates: []scratch.TemplateSpec{{Dim: 1536, Base: base}}})
			if err != nil {
				shared.errs[i] = err
				return
			}
			shared.desc[i] = srv.TemplateDescription(1536, scratch.Base{})
			var d *scratch.Database
			if d, err = srv.NewDatabase(ctx, 1536); err == nil {
				_, err = d.Query(ctx, "SELECT count(*) FROM public.thoughts", scratch.QueryOptions{})
			}
			shared.errs[i] = errors.Join(err, stopGone(srv))
		})
	}
	wg.Wait()
}

// removeSharedBuild removes the shared build's cache, once the package's tests are over.
func removeSharedBuild() {
	if shared.root != "" {
		os.RemoveAll(filepath.Dir(shared.root))
	}
}

// copyEntry copies the shared build's entry into the cache root (made if missing), with its
// modes, and returns the copy's directory.
func copyEntry(t *testing.T, root string) string {
	t.Helper()
	dirs, _ := entries(t, sharedBuild(t).root)
	if len(dirs) != 1 {
		t.Fatalf("the shared build left %d entries, want one", len(dirs))
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, filepath.Base(dirs[0]))
	if err := copyDir(dirs[0], dst); err != nil {
		t.Fatalf("copying the shared entry: %v", err)
	}
	return dst
}

// copyDir copies the directory src, which holds regular files only, to dst, with their modes.
func copyDir(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, st.Mode().Perm()); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", filepath.Join(src, e.Name()))
		}
		if err := copyWithMode(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return os.Chmod(dst, st.Mode().Perm())
}

// copyWithMode copies the regular file src to the new file dst, with its mode.
func copyWithMode(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, st.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Chmod(st.Mode().Perm()), out.Close())
}
