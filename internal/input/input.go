// Package input reads the files ledgercheck is given: migrations, the configuration, the
// allowlist, fixtures. Every one goes through [ReadFile], which accepts only a regular file and
// reads at most the [Kind]'s limit, so that a FIFO cannot hang a run and /dev/zero cannot fill
// its memory. The limits of every kind are here, in one place.
//
// Errors are one line that names the path and says what to do; they wrap the underlying
// error, so errors.Is(err, fs.ErrNotExist) still tells a missing file.
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Kind is a kind of input file: what it is called in messages, and the most ledgercheck reads
// of it.
type Kind struct {
	// Noun names the kind in messages ("migration"); Plural is its plural.
	Noun, Plural string
	// Limit is the largest file of this kind ledgercheck reads, in bytes.
	Limit int64
	// Hint says why the limit is enough, after an over-limit error.
	Hint string
}

// The kinds of input file and their limits.
var (
	// Migration is a migration: the artifact, a port, a previous version, an
	// environment.extra file. 4 MiB is a hundred times the decision ledger; lint reads a MiB of
	// it in about half a second (a MiB of the smallest statements in one second).
	Migration = Kind{Noun: "migration", Plural: "migrations", Limit: 4 << 20,
		Hint: "a migration carries schema: load bulk data separately"}
	// Fixture is the SQL loaded into both installs for the rerun audit and the probes. It is
	// parsed and installed like a migration, so it has a migration's limit.
	Fixture = Kind{Noun: "fixture", Plural: "fixtures", Limit: 4 << 20,
		Hint: "a fixture holds enough rows to exercise the schema, not a copy of production"}
	// Config is ledgercheck.yaml (or the file --config names). The shipped one is 5 KiB.
	Config = Kind{Noun: "configuration", Plural: "configurations", Limit: 1 << 20,
		Hint: "a configuration names files and settings; it holds no data"}
	// Allowlist is allowlist.yaml, the reviewed differences. The shipped one is 6 KiB; a
	// thousand entries fit.
	Allowlist = Kind{Noun: "allowlist", Plural: "allowlists", Limit: 1 << 20,
		Hint: "an allowlist entry pins long values by digest"}
	// TableStats is production's row counts and sizes per table (--table-stats, table_stats:),
	// one line or object per table: 8 MiB holds a hundred thousand tables.
	TableStats = Kind{Noun: "table statistics", Plural: "table statistics", Limit: 8 << 20,
		Hint: "it holds one row per table (schema, table, rows, bytes), not the tables' data"}
)

// ReadFile reads the file at path as a k. It refuses anything but a regular file (after
// following symbolic links) before opening it, so that a FIFO or a device never blocks or
// streams, and reads at most k.Limit bytes.
func ReadFile(path string, k Kind) ([]byte, error) {
	if err := Check(path, k); err != nil {
		return nil, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, statError(path, err)
	}
	defer fh.Close()
	// The path may have been replaced between Stat and Open: check what was opened.
	if st2, err := fh.Stat(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	} else if err := regular(path, st2, k); err != nil {
		return nil, err
	}
	return Read(fh, path, k)
}

// Check returns the error [ReadFile] would return for path without reading it: nil if it is a
// regular file (after following symbolic links) of at most k.Limit bytes. A command that reads
// several files checks them all before it starts working on the first.
func Check(path string, k Kind) error {
	st, err := os.Stat(path)
	if err != nil {
		return statError(path, err)
	}
	if err := regular(path, st, k); err != nil {
		return err
	}
	if st.Size() > k.Limit {
		return tooLarge(path, st.Size(), k)
	}
	return nil
}

// Read reads r, the content of the k called name, up to k.Limit bytes; more is an error.
func Read(r io.Reader, name string, k Kind) ([]byte, error) {
	// Sizes lie (a file under /proc says 0, a file may grow): read one byte past the limit.
	b, err := io.ReadAll(io.LimitReader(r, k.Limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(b)) > k.Limit {
		return nil, tooLarge(name, int64(len(b)), k)
	}
	return b, nil
}

// regular returns an error unless st is a regular file.
func regular(path string, st fs.FileInfo, k Kind) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s: is a directory, not %s file", path, article(k.Noun))
	}
	return fmt.Errorf("%s: is %s, not %s file; ledgercheck reads only regular files (save the %s to a file and pass that)", path, describe(m), article(k.Noun), k.Noun)
}

// article returns noun after its indefinite article.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// describe names a file mode that is not a regular file or a directory.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// statError is the one-line error for a path that cannot be examined or opened.
func statError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &wrapped{path + ": no such file", err}
	case errors.Is(err, fs.ErrPermission):
		return &wrapped{path + ": permission denied", err}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &wrapped{fmt.Sprintf("%s: %v", path, pe.Err), err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

func tooLarge(path string, size int64, k Kind) error {
	return fmt.Errorf("%s: %s", path, TooLarge(size, k))
}

// TooLarge is the message for a k of size bytes, over k.Limit (k.Limit+1: a file read up to one
// byte past the limit, whose size is not known).
func TooLarge(size int64, k Kind) string {
	if size == k.Limit+1 {
		return fmt.Sprintf("the file is over %s; ledgercheck reads %s of at most %s (%s)", mib(k.Limit), k.Plural, mib(k.Limit), k.Hint)
	}
	return fmt.Sprintf("the file is %.1f MiB; ledgercheck reads %s of at most %s (%s)", float64(size)/(1<<20), k.Plural, mib(k.Limit), k.Hint)
}

// mib renders a limit: in MiB or KiB when it is a whole number of them, else in bytes.
func mib(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// wrapped is a one-line message that wraps the error it describes, so that errors.Is still
// sees it (fs.ErrNotExist for a missing file).
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }
