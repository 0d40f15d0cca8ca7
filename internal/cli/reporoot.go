package cli

import "github.com/ledgercheck/ledgercheck/internal/input"

// repoRoot is the directory report locations (SARIF URIs, GitHub annotations) are relative to:
// --repo-root when given, else the git top level of the working directory (the nearest
// directory up from it holding .git, a directory or a worktree's file), else the working
// directory. Run from migrations/, a finding in migrations/x.sql is still migrations/x.sql.
func repoRoot(flag string) string {
	if flag != "" {
		return flag
	}
	return input.RepoRoot(".")
}
