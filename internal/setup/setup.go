// Package setup is `ledgercheck setup`: the binary carries scripts/setup.sh, the sources it builds
// from (the guard's C source and Makefile, pg_config.c, the AppArmor profile) and
// guard-container.sh, writes them into a directory and runs the script from there, naming the
// files and the command the user ran in its environment (LEDGERCHECK_SETUP_*), so that a binary
// alone, outside any checkout, installs what the embedded cluster needs. The script is the one
// `make setup` runs in a checkout: its logic lives there, not here.
package setup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/scratch/guard"
	"github.com/ledgercheck/ledgercheck/scripts"
)

// A file the binary carries: its path in the directory setup writes, and its content.
type file struct {
	path string
	data []byte
	mode os.FileMode
}

// Where each carried file goes in the directory [Write] fills, and the variables that name them
// for the scripts.
const (
	setupScript     = "setup.sh"
	containerScript = "guard-container.sh"
	guardDir        = "guard"
	pgConfigSource  = "pgconfig/pg_config.c"
	apparmorProfile = "apparmor/ledgercheck-bwrap"
)

// files returns every file setup needs, read from the binary.
func files() ([]file, error) {
	var out []file
	for _, f := range []struct {
		from fs.FS
		name string
		path string
		mode os.FileMode
	}{
		{scripts.Files, "setup.sh", setupScript, 0o755},
		{scripts.Files, "guard-container.sh", containerScript, 0o755},
		{scripts.Files, "pgconfig/pg_config.c", pgConfigSource, 0o644},
		{scripts.Files, "apparmor/ledgercheck-bwrap", apparmorProfile, 0o644},
		{guard.Source, "c/ledgercheck_guard.c", guardDir + "/ledgercheck_guard.c", 0o644},
		{guard.Source, "c/Makefile", guardDir + "/Makefile", 0o644},
	} {
		data, err := fs.ReadFile(f.from, f.name)
		if err != nil {
			return nil, fmt.Errorf("reading the carried %s: %w", f.name, err)
		}
		out = append(out, file{path: f.path, data: data, mode: f.mode})
	}
	return out, nil
}

// Digest identifies the carried files: the first 16 hex digits of the SHA-256 of their paths and
// contents. A directory of that name holds this binary's files and no other's.
func Digest() (string, error) {
	carried, err := files()
	if err != nil {
		return "", err
	}
	sort.Slice(carried, func(i, j int) bool { return carried[i].path < carried[j].path })
	h := sha256.New()
	for _, f := range carried {
		fmt.Fprintf(h, "%s\x00%d\x00", f.path, len(f.data))
		h.Write(f.data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Write writes the carried files into dir (created if missing, readable by all, as the files the
// printed commands name must be for sudo and make), each through a temporary file renamed into
// place, so that two runs writing the same directory never leave half a file.
func Write(dir string) error {
	carried, err := files()
	if err != nil {
		return err
	}
	for _, f := range carried {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("writing setup's files: %w", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
		if err != nil {
			return fmt.Errorf("writing setup's files: %w", err)
		}
		_, werr := tmp.Write(f.data)
		if err := tmp.Chmod(f.mode); werr == nil {
			werr = err
		}
		if err := tmp.Close(); werr == nil {
			werr = err
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), path)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("writing setup's files into %s: %w", dir, werr)
		}
	}
	return nil
}

// Prepare writes the carried files into a directory and returns it, with the function that
// removes it when it is not to be kept. Root's run is the install itself: a new temporary
// directory, removed afterwards. Another user's run prints commands to run as root that name
// these files, so they must outlive it: they go to the user's cache directory
// (ledgercheck-setup/DIGEST under os.UserCacheDir), or, without one, to a temporary directory
// that is kept.
func Prepare(root bool) (dir string, cleanup func(), err error) {
	keep := func() {}
	if !root {
		digest, err := Digest()
		if err != nil {
			return "", nil, err
		}
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "ledgercheck-setup", digest)
			if err := Write(dir); err == nil {
				return dir, keep, nil
			}
		}
	}
	if dir, err = os.MkdirTemp("", "ledgercheck-setup-"); err != nil {
		return "", nil, fmt.Errorf("a directory for setup's files: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("a directory for setup's files: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if !root {
		cleanup = keep
	}
	if err := Write(dir); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, cleanup, nil
}

// Options are a run of setup.
type Options struct {
	// Dir is the directory [Write] filled.
	Dir string
	// Postgres is the major version to install for (15 or 17).
	Postgres int
	// Check only says what is missing (setup.sh --check).
	Check bool
	// Container, when not empty, loads the guard into that running PostgreSQL container
	// (guard-container.sh) instead.
	Container string
	// Command is what the user runs for this setup (`/usr/local/bin/ledgercheck setup --pg 17`),
	// which the script's messages name.
	Command string
	// Stdout and Stderr receive the script's output.
	Stdout, Stderr io.Writer
}

// ScriptExit is a script's non-zero exit: what it said is on the run's stdout and stderr
// already (one line saying what is missing, or the commands to run as root).
type ScriptExit struct {
	Script string
	Code   int
}

func (e *ScriptExit) Error() string { return fmt.Sprintf("%s exited %d", e.Script, e.Code) }

// Run runs setup.sh (or guard-container.sh) from opts.Dir, with the environment naming the
// files written there and the command. A script's own failure is a *[ScriptExit]; not being
// able to run it at all is another error.
func Run(ctx context.Context, opts Options) error {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return errors.New("setup runs a bash script, and bash is not installed")
	}
	script, args := setupScript, []string{}
	if opts.Container != "" {
		script, args = containerScript, []string{opts.Container}
	} else if opts.Check {
		args = []string{"--check"}
	}
	cmd := exec.CommandContext(ctx, bash, append([]string{filepath.Join(opts.Dir, script)}, args...)...)
	cmd.Stdout, cmd.Stderr = opts.Stdout, opts.Stderr
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("PG_MAJOR=%d", opts.Postgres),
		"LEDGERCHECK_SETUP_COMMAND="+opts.Command,
		"LEDGERCHECK_SETUP_GUARD_SRC="+filepath.Join(opts.Dir, guardDir),
		"LEDGERCHECK_SETUP_PGCONFIG_SRC="+filepath.Join(opts.Dir, filepath.FromSlash(pgConfigSource)),
		"LEDGERCHECK_SETUP_APPARMOR_SRC="+filepath.Join(opts.Dir, filepath.FromSlash(apparmorProfile)))
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return &ScriptExit{Script: script, Code: ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", script, err)
	}
	return nil
}

// Quote returns s as one shell word: itself when it holds nothing a shell would read, else in
// single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
