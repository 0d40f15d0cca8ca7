package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
)

// gitRepo is the repository check --changed reads: the one holding the configuration, found by
// ledgercheck from the configuration's real directory, never by git's own discovery. Whoever
// opens a pull request writes the files of the work tree, and git runs programs its
// configuration names (core.fsmonitor, hooks, a pager, diff and filter drivers, ssh and
// credential helpers); a directory of the tree holding the files of a git directory (HEAD,
// objects/, refs/, a config) is a repository to git's discovery, whose config then chooses
// those programs and whose refs what "changed" means. So every invocation names the git
// directory and the work tree, reads no system or global configuration and no GIT_* variable
// of the environment, and turns off every key that runs a program ([gitSafety], [gitRepo.run]).
type gitRepo struct {
	top    string   // the work tree's top level (real path)
	gitDir string   // its git directory: top/.git, or the directory a .git file names
	safety []string // the -c options that turn off the program-running keys its config sets
}

// gitSafety are the options every git invocation starts with: no pager, no replace objects,
// no optional locks, pathspecs taken literally, and every configuration key that makes git run
// a program set to run none (a driver's keys, whose names the configuration chooses, are
// added per repository: [gitRepo.drivers]). -c outranks every configuration file and reaches
// the processes git starts.
var gitSafety = []string{
	"--no-pager", "--no-replace-objects", "--literal-pathspecs", "--no-optional-locks",
	"-c", "safe.bareRepository=explicit",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.editor=false",
	"-c", "sequence.editor=false",
	"-c", "core.askPass=",
	"-c", "core.sshCommand=false",
	"-c", "core.gitProxy=",
	"-c", "core.alternateRefsCommand=",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.untrackedCache=false",
	"-c", "credential.helper=",
	"-c", "diff.external=",
	"-c", "diff.ignoreSubmodules=all",
	"-c", "submodule.recurse=false",
	"-c", "protocol.allow=never",
	"-c", "gpg.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "log.showSignature=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "uploadpack.packObjectsHook=",
}

// gitEnv is the environment git runs in: the process's without any GIT_* variable (which could
// name another git directory, work tree, object store, configuration, pager, external diff or
// ssh command), with neither the system's nor the user's configuration (a runner's global
// config may define filter drivers, which the tree's .gitattributes could then apply).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToUpper(kv), "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_PROTOCOL_FROM_USER=0")
}

// findGitRepo finds the repository holding the configuration in dir: the nearest directory
// from dir's real path upwards that holds .git. A directory on the way that holds the files of
// a git directory is one planted in the work tree, and an input error naming it; so is a .git
// below the top level of the repository the working directory is in (a repository nested in
// it, which the configuration would otherwise be read from). A .git file is read through scope.
func findGitRepo(scope input.Scope, dir, ref string) (*gitRepo, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--changed %s: %w", ref, err))
	}
	for d := real; ; d = filepath.Dir(d) {
		if looksLikeGitDir(d) {
			return nil, fault.Input(fmt.Errorf("--changed %s: %s holds the files of a git directory (HEAD, objects, refs) inside the work tree: a repository planted there would choose what changed and which programs git runs; remove it", ref, d))
		}
		gitDir, ok, err := dotGit(scope, d)
		if err != nil {
			return nil, fault.Input(fmt.Errorf("--changed %s: %w", ref, err))
		}
		if ok {
			if err := notNested(d, ref); err != nil {
				return nil, err
			}
			return &gitRepo{top: d, gitDir: gitDir}, nil
		}
		if filepath.Dir(d) == d {
			return nil, fault.Input(fmt.Errorf("--changed %s: %s is not in a git repository (no directory from it upwards holds .git)", ref, dir))
		}
	}
}

// notNested refuses a repository whose top level lies below the top level of the repository
// the working directory is in: a .git inside the work tree of the one ledgercheck runs in.
func notNested(top, ref string) error {
	wd, err := filepath.EvalSymlinks(".")
	if err != nil {
		return nil
	}
	outer := input.RepoRoot(wd)
	if _, err := os.Lstat(filepath.Join(outer, ".git")); err != nil || outer == top {
		return nil
	}
	if rel, err := filepath.Rel(outer, top); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return fault.Input(fmt.Errorf("--changed %s: %s is a git repository inside the work tree of %s, the repository ledgercheck runs in: the configuration's changes are read from the repository that holds it; remove the nested .git", ref, filepath.Join(top, ".git"), outer))
	}
	return nil
}

// looksLikeGitDir reports whether d holds what makes git take a directory for a git directory
// (a HEAD beside objects/ and refs/, or beside a commondir file): d is then a repository of its
// own to git's discovery.
func looksLikeGitDir(d string) bool {
	if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	for _, sub := range []string{"objects", "refs", "commondir"} {
		if _, err := os.Lstat(filepath.Join(d, sub)); err == nil {
			return true
		}
	}
	return false
}

// dotGit returns the git directory d's .git names: .git itself when it is a directory, the
// directory a .git file's "gitdir:" line names (a worktree's, a submodule's), read through scope;
// ok is false when d has no .git.
func dotGit(scope input.Scope, d string) (gitDir string, ok bool, err error) {
	p := filepath.Join(d, ".git")
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir():
		return p, true, nil
	case !fi.Mode().IsRegular():
		return "", false, fmt.Errorf("%s is neither a directory nor a file", p)
	}
	b, err := scope.ReadFile(p, input.Config)
	if err != nil {
		return "", false, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !found {
		return "", false, fmt.Errorf("%s: no gitdir: line", p)
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(d, gd)
	}
	return gd, true, nil
}

// programKey matches the configuration keys whose value is a program a driver of that name
// runs: the tree's .gitattributes choose the driver (filter=, diff=, merge=), the configuration
// its program.
var programKey = regexp.MustCompile(`^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver)$`)

// drivers adds to the repository's safety options an empty program for every driver key its
// configuration sets (read with the options of gitSafety, so the read itself runs nothing).
func (r *gitRepo) drivers(ctx context.Context) error {
	out, err := r.run(ctx, "config", "--list", "--name-only", "-z")
	if err != nil {
		return fault.Env(fmt.Errorf("reading %s's configuration: %w", r.gitDir, err))
	}
	for _, key := range strings.Split(out, "\x00") {
		if programKey.MatchString(strings.ToLower(key)) {
			r.safety = append(r.safety, "-c", key+"=")
			if strings.HasPrefix(strings.ToLower(key), "filter.") {
				name := key[:strings.LastIndex(key, ".")]
				r.safety = append(r.safety, "-c", name+".required=false")
			}
		}
	}
	return nil
}

// run runs git on r with args and returns its standard output; the error carries git's last
// line of standard error.
func (r *gitRepo) run(ctx context.Context, args ...string) (string, error) {
	full := append(append([]string{"--git-dir=" + r.gitDir, "--work-tree=" + r.top}, gitSafety...), r.safety...)
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir, cmd.Env = r.top, gitEnv()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if msg := lines[len(lines)-1]; msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return out.String(), nil
}
