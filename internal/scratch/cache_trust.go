package scratch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A cache entry is a cluster's data directory that the next run starts its server from, and its
// superuser password: whoever can write the cache can make that server run anything (a
// shared_preload_libraries of theirs, a changed template) with the privileges of the user who
// runs ledgercheck. So the cache is used only when its directory, and every file of the entry
// used, is the running user's own, a real directory or regular file (not a symbolic link), and
// writable by no group or other user; otherwise the run goes on without the cache and says why
// in one line.

// untrusted says why the part of the cache at path may not be used, or nil when it may. dir
// says whether it must be a directory.
func untrusted(path string, dir bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case dir && !st.IsDir():
		return fmt.Errorf("%s is %s, not a directory", path, kindOf(st.Mode()))
	case !dir && !st.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not a regular file", path, kindOf(st.Mode()))
	case !ok:
		return fmt.Errorf("%s: its owner cannot be read", path)
	case int(sys.Uid) != os.Geteuid():
		return fmt.Errorf("%s belongs to uid %d, not to the user running ledgercheck (uid %d)", path, sys.Uid, os.Geteuid())
	case st.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by other users (mode %04o)", path, st.Mode().Perm())
	}
	return nil
}

// kindOf names a file's type for a message.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// untrustedEntry checks the parts of the entry dir that a run reads: the directory, its
// manifest, its password and its data (those that exist: a missing one is the entry's absence,
// which restore reports).
func untrustedEntry(dir string) error {
	if err := untrusted(dir, true); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, f := range []string{"manifest.json", "secret", dataFile} {
		if err := untrusted(filepath.Join(dir, f), false); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
