package scratch

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
)

// TestCacheKeyCoversTheEnvironment: every file of the environment (the roles, the per-database
// scripts, the stand-in extensions' control files and scripts) goes into the cache key whole,
// and so does the extension directory they are shown in, so that a change to any of them makes
// another entry.
func TestCacheKeyCoversTheEnvironment(t *testing.T) {
	var a, b bytes.Buffer
	writeEnvironmentKey(&a, "/usr/share/postgresql/15/extension")
	writeEnvironmentKey(&b, "/usr/local/lib/postgresql/17/share/postgresql/extension")
	if a.String() == b.String() {
		t.Error("the key does not depend on the extension directory")
	}
	files := append([]env.File{env.Roles()}, env.Extensions()...)
	for _, s := range EnvironmentScripts("postgres", bootstrapUser) {
		files = append(files, env.File(s))
	}
	if len(env.Extensions()) < 6 {
		t.Fatalf("%d stand-in files, want the control file and script of pg_cron, pg_net and supabase_vault", len(env.Extensions()))
	}
	for _, f := range files {
		if !strings.Contains(a.String(), fmt.Sprintf("%q", f.SQL)) {
			t.Errorf("%s is not in the cache key", f.Name)
		}
	}
}
