package scratch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// Nothing the sandbox wrote is trusted on the host. The cluster's directory is the sandbox's to
// write (all of it when ledgercheck runs as an ordinary user, whose sandbox has the same user
// id; data/ and sock/ when it runs as root), and whatever ledgercheck does there with the host's
// privileges goes through one of these functions, none of which follows a symbolic link out of
// the directory:
//
//   - the directory itself is opened only when it is a real directory (not a link) that the
//     process owns ([openClusterDir]), as an [os.Root], which resolves every name inside it
//     without leaving it;
//   - the owner and sandbox PID files are read through that root, at most 32 bytes ([readPIDIn]);
//   - the cluster is removed by [removeCluster]: its databases through the root, the rest by
//     [os.RemoveAll], which opens every directory with O_NOFOLLOW and unlinks links as links;
//   - the cache reads a stopped cluster's data directory (before any user SQL ran in it) through
//     the root, and only regular files and directories (cache.go, pack);
//   - the size watchdog walks it with openat(O_NOFOLLOW) and fstatat(AT_SYMLINK_NOFOLLOW)
//     ([dirUsage]);
//   - bubblewrap's bind sources are host files outside it or the directory itself (sandbox.go),
//     and the host's client connects to the socket only to a server of the sandbox's own PID
//     namespace (dialSandbox).

// openClusterDir opens dir, a cluster's directory, as a root, when it is a directory (not a
// symbolic link) owned by this process's user: a name in the temp dir that someone else made,
// or made into a link, is not a cluster of this user's.
func openClusterDir(dir string) (*os.Root, error) {
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Geteuid() {
		return nil, fmt.Errorf("%s is not a directory of this user's", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	// The name may have been replaced between the Lstat and the open.
	if rst, err := root.Stat("."); err != nil || !os.SameFile(st, rst) {
		root.Close()
		return nil, fmt.Errorf("%s changed while it was opened", dir)
	}
	return root, nil
}

// readPIDIn reads the process id in the file name of root (0 when there is none), reading at
// most 32 bytes of it, and nothing outside root.
func readPIDIn(root *os.Root, name string) int {
	f, err := root.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	b, err := io.ReadAll(io.LimitReader(f, 32))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// removeCluster removes dir, a cluster's directory, without following any symbolic link the
// sandbox may have left in it: the databases under data/base (nearly all of its thousands of
// files) by two workers through the directory's root, then the rest with os.RemoveAll, which
// never follows a link either. A dir that is not this user's directory is not touched.
func removeCluster(dir string) error {
	root, err := openClusterDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	removeContents(root, "data/base", 2)
	root.Close()
	return os.RemoveAll(dir)
}

// removeContents removes what is in the directory rel of root, by workers goroutines, leaving
// rel; errors are left for whoever removes rel next to report. Nothing outside root is listed
// or removed.
func removeContents(root *os.Root, rel string, workers int) {
	d, err := root.Open(rel)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	var g fault.Group
	for w := range workers {
		g.Go(func() error {
			for i := w; i < len(ents); i += workers {
				_ = root.RemoveAll(path.Join(rel, ents[i].Name()))
			}
			return nil
		})
	}
	_ = g.Wait() // a panic too is left for whoever removes rel next: it finds what stayed
}

// dirUsage returns the bytes that the files under the directory fd (which it closes) take,
// counting the blocks each regular file, directory and link has (a sparse file counts what it
// holds), and the number of entries; it follows no link, and a hard link is counted once.
func dirUsage(fd int, seen map[uint64]bool) (bytes int64, n int) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil {
		bytes += st.Blocks * 512
	}
	f := os.NewFile(uintptr(fd), "")
	if f == nil {
		syscall.Close(fd)
		return bytes, 0
	}
	defer f.Close()
	for {
		// Names only: an entry's type is read with fstatat, never by a path.
		names, err := f.Readdirnames(512)
		for _, name := range names {
			n++
			if lstatAt(fd, name, &st) != nil {
				continue
			}
			if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
				sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
				if err == nil {
					b, k := dirUsage(sub, seen)
					bytes, n = bytes+b, n+k
				}
				continue
			}
			if st.Nlink > 1 {
				if seen[st.Ino] {
					continue
				}
				seen[st.Ino] = true
			}
			bytes += st.Blocks * 512
		}
		if err != nil || len(names) == 0 {
			return bytes, n
		}
	}
}

// lstatAt is fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW): the entry name of the directory
// dirfd itself, a link as a link (the syscall package has no fstatat on every architecture).
func lstatAt(dirfd int, name string, st *syscall.Stat_t) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	const atSymlinkNofollow = 0x100
	_, _, errno := syscall.Syscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), atSymlinkNofollow, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// usageOf returns the bytes the directory dir takes (see [dirUsage]), not following dir itself
// if it is a link.
func usageOf(dir string) (int64, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	b, _ := dirUsage(fd, map[uint64]bool{})
	return b, nil
}

// dialSandbox connects to the cluster's socket (a path in sock/, which the sandbox may write)
// and checks that the server at the other end is the sandbox's postmaster (SO_PEERCRED): a link
// the sandbox planted there, to another server's socket on the host, gets no byte of
// ledgercheck's, not its user name nor a password exchange.
func (c *cluster) dialSandbox(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	peer, err := peerPID(conn)
	if err == nil {
		if pm := c.postmaster(int(c.sandboxInit.Load())); pm <= 0 || peer != pm {
			err = fmt.Errorf("the server at %s (pid %d) is not the scratch cluster's postmaster (pid %d): its socket was replaced", addr, peer, pm)
		}
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// peerPID returns the process id of the server end of a unix socket connection.
func peerPID(conn net.Conn) (int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("not a unix socket connection: %T", conn)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return int(cred.Pid), nil
}

// writeNew writes a new file name (mode perm) in the cluster's directory dir with content,
// replacing whatever is there (a link the sandbox planted is removed, not followed), through
// the directory's root.
func writeNew(dir, name string, content []byte, perm os.FileMode) error {
	root, err := openClusterDir(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
