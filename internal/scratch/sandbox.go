package scratch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// The embedded cluster runs inside a bubblewrap (bwrap) sandbox: its own mount, PID, network,
// IPC, UTS and user namespaces, a root file system that holds only the system's /usr (binaries,
// libraries, shared data), the cluster's own directory and a private /tmp, /dev and /proc. Even
// if SQL reaches a program or file primitive (COPY ... PROGRAM, pg_read_file), the server and
// whatever it starts see no other run, no host file outside /usr, no network, and no process but
// their own; when the outermost bwrap dies (it dies with ledgercheck), the kernel kills every
// process of the PID namespace, a `setsid nohup sleep &` included.
//
// bwrap is Debian's `bubblewrap`, the sandbox behind Flatpak: a small, audited setuid-free tool
// that does exactly this through unprivileged user namespaces. Doing it in Go would need a
// re-exec helper between clone and exec (Go's os/exec cannot run code there) for the same
// result.

// innerDir is where the cluster's directory appears inside the sandbox. It is short, so the
// socket path inside is always far below the 107-byte limit of unix socket paths.
const innerDir = "/run/ledgercheck"

// maxSocketPath is the longest unix socket path Linux accepts (sizeof sun_path - 1).
const maxSocketPath = 107

// sandbox runs commands of one embedded cluster inside bubblewrap.
type sandbox struct {
	bwrap string // path of the bwrap binary
	dir   string // the cluster's directory on the host, bound at innerDir
	// prefix is the PostgreSQL installation outside /usr to bind read-only (--pg-bin /opt/...),
	// or "".
	prefix string
	// extDir is the server's extension directory, which the sandbox shows with the stand-in
	// extensions (extensions.go), or "" for none.
	extDir string
	// cred is the OS identity the sandbox runs as: a user id of its own for each run when
	// ledgercheck runs as root (so no other process on the host shares it), else nil (the
	// invoking user).
	cred *syscall.Credential
}

// CheckSandbox returns the environment error an embedded cluster would fail with for want of
// bubblewrap, or nil when bwrap is installed: the one check the tests' helpers
// (scratchtest.NeedPostgres) share with [Start].
func CheckSandbox() error {
	_, err := findBwrap()
	return err
}

// findBwrap returns the path of bwrap, or an environment error saying how to install it.
func findBwrap() (string, error) {
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fault.Env(errors.New("the embedded cluster runs in a bubblewrap sandbox and bwrap is not installed: run `" + setupCommand(0) + "` as root (or `apt-get install bubblewrap`), or use --dsn URL"))
	}
	return p, nil
}

// runUID is the first user id handed to embedded clusters when ledgercheck runs as root; each
// run draws one at random from the 2^24 ids above it, a range no distribution assigns.
const runUID = 0x50000000

// IsRunUID reports whether uid is one of the user ids runs of the embedded cluster get when
// ledgercheck runs as root.
func IsRunUID(uid uint32) bool { return uid >= runUID && uid < runUID+1<<24 }

// newRunCredential returns a user and group id of their own for one run's server (root only).
func newRunCredential() (*syscall.Credential, error) {
	for range 16 {
		id := runUID + int(randomUint32()%(1<<24))
		if _, err := user.LookupId(strconv.Itoa(id)); err == nil {
			continue // taken by an account on this host
		}
		return &syscall.Credential{Uid: uint32(id), Gid: uint32(id), Groups: []uint32{}}, nil
	}
	return nil, fault.Env(errors.New("could not find a free user id for the scratch cluster's sandbox"))
}

// ids returns the sandbox's user and group ids as seen on the host.
func (sb *sandbox) ids() (uid, gid int) {
	if sb.cred == nil {
		return os.Geteuid(), os.Getegid()
	}
	return int(sb.cred.Uid), int(sb.cred.Gid)
}

// layout creates the directories and files the sandbox needs in sb.dir:
//
//	conf/pg_hba.conf        password authentication for every connection
//	data/                   the cluster (owned by the sandbox's user)
//	sock/                   the unix socket (owned by the sandbox's user)
//
// When ledgercheck runs as root, sb.dir and conf/ belong to root: the server can read its
// authentication rules but not change them, even with OS access as its own user. The sandbox's
// /etc/passwd and /etc/group are not files in sb.dir: bubblewrap reads them from pipes (see
// [sandbox.command]), so that no path the sandbox may have replaced is a bind source.
func (sb *sandbox) layout() error {
	uid, gid := sb.ids()
	files := map[string]string{
		"conf/pg_hba.conf":  "# ledgercheck: every connection authenticates with the run's secret.\nlocal all all scram-sha-256\n",
		"conf/postgres.uid": strconv.Itoa(uid) + "\n",
	}
	if err := os.Mkdir(filepath.Join(sb.dir, "conf"), 0o755); err != nil {
		return err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(sb.dir, name), []byte(content), 0o444); err != nil {
			return err
		}
	}
	for _, d := range []string{"data", "sock"} {
		p := filepath.Join(sb.dir, d)
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		if sb.cred != nil {
			if err := os.Chown(p, uid, gid); err != nil {
				return err
			}
		}
	}
	if sb.cred != nil {
		// Traversable by the sandbox's user, listable by nobody else.
		return os.Chmod(sb.dir, 0o711)
	}
	return nil
}

// accounts returns the sandbox's /etc/passwd and /etc/group: its only account (initdb looks
// its user up).
func (sb *sandbox) accounts() (passwd, group string) {
	uid, gid := sb.ids()
	return fmt.Sprintf("ledgercheck:x:%d:%d:ledgercheck scratch cluster:%s:/usr/sbin/nologin\n", uid, gid, innerDir),
		fmt.Sprintf("ledgercheck:x:%d:\n", gid)
}

// writeSecret writes a file only the sandbox's user can read (initdb's --pwfile), returning its
// path inside the sandbox and a function that removes it.
func (sb *sandbox) writeSecret(name, secret string) (inner string, remove func(), err error) {
	p := filepath.Join(sb.dir, "conf", name)
	if err := writeNew(sb.dir, filepath.Join("conf", name), []byte(secret+"\n"), 0o400); err != nil {
		return "", nil, err
	}
	if sb.cred != nil {
		uid, gid := sb.ids()
		if err := os.Lchown(p, uid, gid); err != nil {
			os.Remove(p)
			return "", nil, err
		}
	}
	return innerDir + "/conf/" + name, func() { os.Remove(p) }, nil
}

// checkReachable fails with an actionable message when the sandbox's own user (root's runs
// only) could not reach the cluster's directory: bwrap binds it as that user.
func (sb *sandbox) checkReachable() error {
	if sb.cred == nil {
		return nil
	}
	for d := filepath.Dir(sb.dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil && st.Mode().Perm()&0o001 == 0 {
			return fault.Env(fmt.Errorf("the scratch directory %s is below %s, which other users may not enter (mode %04o), and the sandboxed server runs as a user of its own: set LEDGERCHECK_TMPDIR to a directory whose parents others may enter, such as /tmp", sb.dir, d, st.Mode().Perm()))
		}
		if d == "/" || d == "." {
			return nil
		}
	}
}

// socketDir is the directory of the cluster's unix socket on the host.
func (sb *sandbox) socketDir() string { return filepath.Join(sb.dir, "sock") }

// checkSocketPath fails with an actionable message when the host path of the socket is too long
// for a unix socket: the server would start, but no client could connect.
func (sb *sandbox) checkSocketPath(port int) error {
	p := filepath.Join(sb.socketDir(), ".s.PGSQL."+strconv.Itoa(port))
	if len(p) > maxSocketPath {
		return fault.Env(fmt.Errorf("the scratch cluster's socket path %s is %d bytes, more than the %d a unix socket path may have: set LEDGERCHECK_TMPDIR to a shorter directory", p, len(p), maxSocketPath))
	}
	return nil
}

// command returns the command that runs name (a path inside the sandbox) with args in the
// sandbox. The caller sets the process attributes; command sets the credential, and the
// command's first extra files (fds 3 and 4) to pipes that hold the sandbox's /etc/passwd and
// /etc/group, which [startCmd] closes on ledgercheck's side once the command has started.
func (sb *sandbox) command(name string, args ...string) (*exec.Cmd, error) {
	a := []string{
		"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LC_ALL", "C", "--setenv", "TZ", "UTC",
		"--setenv", "HOME", innerDir,
		"--ro-bind", "/usr", "/usr",
	}
	// Merged-/usr systems have /lib, /bin ... as symbolic links into /usr; others get them bound.
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", target, d)
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	if _, err := os.Stat("/etc/ld.so.cache"); err == nil {
		a = append(a, "--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache")
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	if sb.prefix != "" { // after /tmp and /dev, which would hide it if it is below one of them
		src := sb.prefix
		if real, err := filepath.EvalSymlinks(src); err == nil {
			src = real
		}
		a = append(a, "--ro-bind", src, sb.prefix)
	}
	passwd, group := sb.accounts()
	var files []*os.File
	for _, content := range []string{passwd, group} {
		f, err := dataPipe(content)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	a = append(a,
		"--ro-bind-data", "3", "/etc/passwd",
		"--ro-bind-data", "4", "/etc/group")
	if sb.extDir != "" { // after /usr and the prefix, which hold it
		ext, err := extensionArgs(sb.extDir, 3+len(files))
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		a = append(a, ext.args...)
		files = append(files, ext.files...)
	}
	a = append(a,
		"--bind", sb.dir, innerDir,
		"--chdir", innerDir,
		"--", name)
	cmd := exec.Command(sb.bwrap, append(a, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: sb.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// dataPipe returns the read end of a pipe that holds content (a few hundred bytes: the pipe's
// buffer takes it all) and is then closed for writing.
func dataPipe(content string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.WriteString(content)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// startCmd starts cmd and closes ledgercheck's copies of its extra files, which the child has.
func startCmd(cmd *exec.Cmd) error {
	err := cmd.Start()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	return err
}

// installPrefix returns the directory to bind for a PostgreSQL installation outside /usr, or ""
// when /usr holds it. PostgreSQL finds its share and lib directories relative to its binaries,
// as they were laid out when it was built: a relocated Debian layout (.../usr/lib/postgresql/N/bin
// with .../usr/share/postgresql/N) needs its whole .../usr, a `make install` prefix (prefix/bin,
// prefix/lib, prefix/share) the prefix.
func installPrefix(binDir string) string {
	abs, err := filepath.Abs(binDir)
	if err != nil {
		return ""
	}
	if abs == "/usr" || strings.HasPrefix(abs, "/usr/") {
		return ""
	}
	if i := strings.LastIndex(abs, "/usr/lib/postgresql/"); i >= 0 {
		return abs[:i] + "/usr"
	}
	return filepath.Dir(abs)
}
