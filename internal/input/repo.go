package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RepoRoot is the repository root of dir: the nearest directory up from it (dir included)
// holding .git (a directory, or a worktree's file), else dir itself. It is absolute when dir can
// be made absolute.
func RepoRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return abs
		}
	}
}

// AllowOutsideFlag is the flag that lets a [Scope] read files outside its repository.
const AllowOutsideFlag = "--allow-outside-repo"

// Scope confines what ledgercheck reads to one repository. The files a repository names (its
// configuration's paths) and the files it holds (a symbolic link in it) are written by whoever
// can open a pull request, while ledgercheck runs with the CI runner's privileges: a migration
// that is a symbolic link to a secret outside the repository would be read and parts of it
// printed in errors and reports. So every path that lies inside the root, as written, must
// still lie inside it once every symbolic link on it is followed ([Scope.Confine]), and every
// path a configuration names must lie inside the root ([Scope.ConfineConfigured]). A path typed
// on the command line that lies outside the root as typed is the user's own choice, and read.
//
// The zero Scope confines nothing (a library caller's, or a test's).
type Scope struct {
	// Root is the repository root (see [RepoRoot]); "" confines nothing.
	Root string
	// AllowOutside turns the confinement off (--allow-outside-repo).
	AllowOutside bool
}

// Confine returns an error when path lies inside the root as written and outside it once its
// symbolic links are followed. The error is one line that names path and the flag, never
// anything read from the file or the link's target.
func (s Scope) Confine(path string) error {
	return s.confine(path, false, "")
}

// ConfineConfigured returns an error when path, named by a configuration under the key what
// ("artifact.file"), lies outside the root, as written ("../x.sql", an absolute path) or once its
// symbolic links are followed.
func (s Scope) ConfineConfigured(path, what string) error {
	return s.confine(path, true, what)
}

func (s Scope) confine(path string, strict bool, what string) error {
	if s.Root == "" || s.AllowOutside || path == "" {
		return nil
	}
	root, err := resolve(s.Root)
	if err != nil {
		return fmt.Errorf("the repository root %s: %w", s.Root, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rootAbs, err := filepath.Abs(s.Root)
	if err != nil {
		return fmt.Errorf("the repository root %s: %w", s.Root, err)
	}
	written := within(rootAbs, abs) || within(root, abs)
	if !written && !strict {
		return nil // typed by the user, outside the repository: theirs to read
	}
	name := path
	if what != "" {
		name = what + " " + path
	}
	if !written {
		return fmt.Errorf("%s is outside the repository %s; ledgercheck reads only files inside it (pass %s to read it anyway)", name, rootAbs, AllowOutsideFlag)
	}
	real, err := resolve(abs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !within(root, real) {
		return fmt.Errorf("%s leads outside the repository %s through a symbolic link; ledgercheck reads only files inside it (pass %s to read it anyway)", name, rootAbs, AllowOutsideFlag)
	}
	return nil
}

// ReadFile is [ReadFile] of a path [Scope.Confine] accepts.
func (s Scope) ReadFile(path string, k Kind) ([]byte, error) {
	if err := s.Confine(path); err != nil {
		return nil, err
	}
	return ReadFile(path, k)
}

// Check is [Check] of a path [Scope.Confine] accepts.
func (s Scope) Check(path string, k Kind) error {
	if err := s.Confine(path); err != nil {
		return err
	}
	return Check(path, k)
}

// within reports whether path is root or below it (both absolute and clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// maxLinks bounds the symbolic links resolve follows, as the kernel's ELOOP does.
const maxLinks = 40

// resolve returns the absolute path with every symbolic link on it followed, including links
// whose target does not exist (a dangling link to a file outside the repository still leads
// outside): what does not exist is kept as written.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	hops := 0
	return resolveAbs(abs, &hops)
}

func resolveAbs(abs string, hops *int) (string, error) {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	dir, base := filepath.Split(abs)
	dir = filepath.Clean(dir)
	if dir == abs || base == "" {
		return abs, nil
	}
	parent, err := resolveAbs(dir, hops)
	if err != nil {
		return "", err
	}
	p := filepath.Join(parent, base)
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil
	case err != nil:
		return p, nil // unreadable: the read reports it
	case st.Mode()&fs.ModeSymlink == 0:
		return p, nil
	}
	if *hops++; *hops > maxLinks {
		return "", errors.New("too many levels of symbolic links")
	}
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return resolveAbs(filepath.Clean(target), hops)
}
