package pgsql

import (
	"path/filepath"
	"testing"
)

// repoSQL are the patterns of the repository's SQL files, from this directory: the test data
// (the corpus, lint's cases, the rerun cases, the fixtures), the migrations and this package's
// own test data.
var repoSQL = []string{"../../testdata/*/*.sql", "../../testdata/*/*/*.sql", "../../testdata/*/*/*/*.sql",
	"../../migrations/*.sql", "../../migrations/*/*.sql", "testdata/*/*.sql"}

// sqlFiles returns the files that match the patterns, failing the test when there are fewer
// than 50.
func sqlFiles(t testing.TB, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, pat := range patterns {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d SQL files", len(files))
	}
	return files
}
