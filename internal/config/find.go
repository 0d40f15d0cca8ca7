package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ledgercheck/ledgercheck/internal/input"
)

// Find returns the configuration that applies in dir, as squawk finds .squawk.toml and git its
// .git: [DefaultFile] in dir, else in the nearest directory above it, up to the repository
// root ([input.RepoRoot]: the directory holding .git; dir alone outside a repository). The path
// is relative to dir when dir is ("../ledgercheck.yaml" from a subdirectory), and "" when there
// is none. An error is one that is not "no such file" on the way.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root := input.RepoRoot(dir)
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, DefaultFile)
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			return relativeTo(dir, abs, p), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		case d == root || filepath.Dir(d) == d:
			return "", nil
		}
	}
}

// relativeTo writes p, a path under or above abs (dir made absolute), relative to dir when dir
// is relative, so that messages name it as the user would.
func relativeTo(dir, abs, p string) string {
	if filepath.IsAbs(dir) {
		return p
	}
	rel, err := filepath.Rel(abs, p)
	if err != nil {
		return p
	}
	return filepath.Join(dir, rel)
}
