package cli

import (
	"os"
	"path/filepath"
)

// repoRoot is the directory report locations (SARIF URIs, GitHub annotations) are relative to:
// --repo-root when given, else the git top level of the working directory (the nearest
// directory up from it holding .git, a directory or a worktree's file), else the working
// directory. Run from migrations/, a finding in migrations/x.sql is still migrations/x.sql.
func repoRoot(flag string) string {
	if flag != "" {
		return flag
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}
