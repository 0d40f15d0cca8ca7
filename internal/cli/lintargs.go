package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/repository"
)

// lintFiles expands lint's arguments as squawk does: - is standard input (stdinName); a file is
// itself; a directory is every
// .sql file under it (hidden directories skipped), sorted; a pattern with *, ? or [...] (quoted,
// so that the shell leaves it) is the files it matches, sorted, ** matching any number of
// directories. The arguments keep their order, and a file named twice is linted once. A
// directory without a .sql file or a pattern that matches none is an input error: a typo must
// not pass as a clean run.
func lintFiles(args []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	for _, arg := range args {
		var matched []string
		var err error
		switch st, serr := os.Stat(arg); {
		case arg == "-":
			matched = []string{stdinName}
		case serr == nil && st.IsDir():
			matched, err = sqlFilesUnder(arg)
			if err == nil && len(matched) == 0 {
				err = fmt.Errorf("%s: the directory holds no .sql file", arg)
			}
		case serr != nil && strings.ContainsAny(arg, "*?[") && validPattern(arg):
			matched, err = globFiles(arg)
			if err == nil && len(matched) == 0 {
				err = fmt.Errorf("%s: the pattern matches no file", arg)
			}
		default:
			matched = []string{arg} // a file, or what lint says is missing
		}
		if err != nil {
			return nil, fault.Input(err)
		}
		for _, f := range matched {
			if !seen[filepath.Clean(f)] {
				seen[filepath.Clean(f)] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// validPattern reports whether arg is a well-formed pattern: a missing file named with a
// bracket that is not one ("evil[.sql") is a missing file.
func validPattern(arg string) bool {
	_, err := path.Match(filepath.ToSlash(arg), "")
	return err == nil
}

// sqlFilesUnder lists the .sql files under dir, sorted, skipping hidden directories.
func sqlFilesUnder(dir string) ([]string, error) { return repository.SQLFiles(dir) }

// globFiles lists the files pattern matches, sorted: filepath.Match's syntax per path element,
// and ** for any number of directories (hidden ones skipped, as a shell's globstar does).
func globFiles(pattern string) ([]string, error) {
	pattern = filepath.ToSlash(pattern)
	if !strings.Contains(pattern, "**") {
		files, err := filepath.Glob(filepath.FromSlash(pattern))
		files = slices.DeleteFunc(files, func(f string) bool { st, err := os.Stat(f); return err != nil || st.IsDir() })
		slices.Sort(files)
		return files, err
	}
	// The directory to walk: the elements before the first one with a metacharacter.
	elems := strings.Split(pattern, "/")
	i := slices.IndexFunc(elems, func(e string) bool { return strings.ContainsAny(e, "*?[") })
	root := strings.Join(elems[:i], "/")
	if root == "" && i > 0 {
		root = "/"
	} else if root == "" {
		root = "."
	}
	var files []string
	err := filepath.WalkDir(filepath.FromSlash(root), func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == filepath.FromSlash(root):
			return fs.SkipAll
		case err != nil:
			return err
		case d.IsDir() && p != filepath.FromSlash(root) && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case !d.IsDir() && repository.MatchGlob(strings.Join(elems[i:], "/"), relSlash(root, p)):
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// relSlash is p relative to root, with slashes.
func relSlash(root, p string) string {
	rel, err := filepath.Rel(filepath.FromSlash(root), p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}
