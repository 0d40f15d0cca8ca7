package scratch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
)

// The cache across runs. Booting the embedded cluster (initdb, start, the Supabase roles) and
// building its templates (the environment and the prerequisites at each dimension) costs more
// than most runs' own work, and gives the same result every time for the same inputs. So an
// embedded run keeps, under the user's cache directory, a copy of a cluster's data directory as
// it was right after those steps, keyed by everything that went into it (see [cacheKey]); a
// later run with the same key copies it into its own sandbox directory, hands the copy to its
// own user id, starts it, and sets fresh passwords for the superuser and the install role before
// anything else connects.
//
// What keeps the sandbox as strong as without the cache:
//   - an entry is saved by a run right after the cluster's roles and templates are built, before
//     any migration runs in it: nothing a migration wrote is ever in it;
//   - a run never points a server at the cache: it copies, and the copy is its own (its uid);
//   - the authentication rules (conf/pg_hba.conf) are not in the data directory: each run writes
//     its own, root-owned, as without the cache;
//   - the entry holds the builder's superuser password (mode 0600, in a 0700 directory); each
//     run replaces it, and the install role's, with secrets of its own before user SQL.
//
// Four runs may start at once: an entry is built under an exclusive flock on its lock file (the
// others wait for it, then copy), into a temporary directory renamed into place once complete;
// its manifest, with the size and CRC-32C of every file, is written last. A copy checks every
// file as it reads it, so an entry that is half written or corrupted is detected, removed and
// rebuilt. (CRC-32C, which the CPU computes, rather than SHA-256, which took half the copy's
// time: the digests detect accidents; whoever could forge an entry could write its manifest.)

// CacheDirEnv names the environment variable that moves the cache (default: the user's cache
// directory, os.UserCacheDir()/ledgercheck).
const CacheDirEnv = "LEDGERCHECK_CACHE_DIR"

// cacheFormat changes whenever the layout of an entry, or what goes into one, does.
const cacheFormat = 5

// maxCacheEntries is how many entries the cache keeps: when a run adds one beyond it, the
// entries least recently used go (another ledgercheck binary or configuration each has its own).
const maxCacheEntries = 6

// CacheDir returns the directory of the cache across runs: $LEDGERCHECK_CACHE_DIR, else
// os.UserCacheDir()/ledgercheck.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(d, "ledgercheck"), nil
}

// TemplateSpec names a template a run will use: a dimension and a [Base]. A run that gives its
// templates to [Start] (Options.Templates) gets them from the cache, or builds them before it
// returns, and saves them there.
type TemplateSpec struct {
	Dim  int
	Base Base
}

// manifest describes a complete entry; it is written last.
type manifest struct {
	Format    int             `json:"format"`
	Key       string          `json:"key"`
	Postgres  string          `json:"postgres"`
	Templates []cachedTpl     `json:"templates"`
	Files     []manifestEntry `json:"files"`
}

type cachedTpl struct {
	Dim         int    `json:"dim"`
	NoOpenBrain bool   `json:"no_open_brain"`
	Key         string `json:"key"`
	// Privileges is the template's privilege model ("" for a new project's).
	Privileges PrivilegeModel `json:"privileges,omitempty"`
	Name       string         `json:"name"` // the template database's name in the entry
	// Description is what Base.Describe said of the template when the entry was built (nil:
	// not described), and DescriptionCRC32C its CRC-32C.
	Description       []byte `json:"description,omitempty"`
	DescriptionCRC32C string `json:"description_crc32c,omitempty"`
}

type manifestEntry struct {
	Path   string      `json:"path"` // relative to data/
	Mode   fs.FileMode `json:"mode"`
	Size   int64       `json:"size"`
	CRC32C string      `json:"crc32c,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cacheRun is one run's use of one cache entry.
type cacheRun struct {
	dir    string // the entry: dir/data.bin, dir/secret, dir/manifest.json
	key    string
	lock   *os.File
	specs  []TemplateSpec
	hit    *manifest // the entry copied into the run's cluster, or nil (the run builds it)
	secret string    // the entry's superuser password, when hit
	keep   bool      // the lock passed on to the goroutine that writes the entry
}

// cacheKey digests everything an entry depends on: the cache's format, ledgercheck's build (its
// version, VCS revision and executable), the PostgreSQL binaries (their path, version and
// files), pgvector's and the guard's files, the settings initdb and the server run with, the
// environment's and the prerequisites' SQL, and the templates (dimension, Open Brain or not,
// and the prerequisite files' digest).
func cacheKey(c *cluster, specs []TemplateSpec) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "format %d\n", cacheFormat)
	// A build of a committed revision is that revision; any other (a modified tree, a test
	// binary) is its executable file.
	revision := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(h, "build %s %s\n", bi.Main.Path, bi.Main.Version)
		modified := true
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value != "false"
			}
		}
		if modified {
			revision = ""
		}
	}
	fmt.Fprintf(h, "revision %q\n", revision)
	if revision == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		if err := stamp(h, exe); err != nil {
			return "", err
		}
	}
	real, err := filepath.EvalSymlinks(c.binDir)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "bin %s %s\n", c.binDir, real)
	out, err := binVersion(c.binDir)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "version %s\n", out)
	for _, f := range []string{"postgres", "initdb"} {
		if err := stamp(h, filepath.Join(c.binDir, f)); err != nil {
			return "", err
		}
	}
	lib := pkgLibDir(c.binDir)
	for _, f := range []string{"vector.so", guardLibrary + ".so"} {
		_ = stamp(h, filepath.Join(lib, f)) // absent: stamps nothing, and the run says why
	}
	fmt.Fprintf(h, "guard %q %s\n", c.guard, guardDigest())
	fmt.Fprintf(h, "initdb %q\nserver %q\n", initdbSettings, serverSettings)
	writeEnvironmentKey(h, c.sb.extDir)
	for _, s := range Prerequisites() {
		fmt.Fprintf(h, "prereq %s %q\n", s.Name, s.SQL)
	}
	fmt.Fprintf(h, "old defaults %q\n", OldDefaultsScript("postgres", bootstrapUser).SQL)
	for _, k := range specKeys(specs) {
		fmt.Fprintf(h, "template %d %t %q %q\n", k.dim, k.noOpenBrain, k.key, k.privileges)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// writeEnvironmentKey writes into w what a template's environment depends on: the roles and
// per-database scripts, the extension directory the sandbox shows the stand-ins in, and the
// stand-in extensions' files.
func writeEnvironmentKey(w io.Writer, extDir string) {
	fmt.Fprintf(w, "roles %q\n", RolesScript().SQL)
	for _, s := range EnvironmentScripts("postgres", bootstrapUser) {
		fmt.Fprintf(w, "env %s %q\n", s.Name, s.SQL)
	}
	fmt.Fprintf(w, "extension dir %q\n", extDir)
	for _, s := range env.Extensions() {
		fmt.Fprintf(w, "extension %s %q\n", s.Name, s.SQL)
	}
}

// specKeys returns the distinct template keys of specs, sorted.
func specKeys(specs []TemplateSpec) []templateKey {
	var ks []templateKey
	for _, s := range specs {
		k := keyOfBase(s.Dim, s.Base)
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b templateKey) int {
		if a.dim != b.dim {
			return a.dim - b.dim
		}
		if a.noOpenBrain != b.noOpenBrain {
			if a.noOpenBrain {
				return 1
			}
			return -1
		}
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(string(a.privileges), string(b.privileges))
	})
	return ks
}

// cacheable reports whether every template of specs can be cached: a Base whose Prepare has no
// Key cannot (what it runs is unknown).
func cacheable(specs []TemplateSpec) bool {
	for _, s := range specs {
		if s.Base.Prepare != nil && s.Base.Key == "" {
			return false
		}
		for _, l := range s.Base.Layers {
			if l.Key == "" {
				return false
			}
		}
		if CheckDim(s.Dim) != nil {
			return false
		}
	}
	return true
}

// stamp writes a file's path, size, modification time and inode into h.
func stamp(h hash.Hash, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	fmt.Fprintf(h, "file %s %d %d %d\n", path, st.Size(), st.ModTime().UnixNano(), ino)
	return nil
}

// openCache finds the run's entry and, when it is complete and intact, copies its data directory
// into the cluster's (handed to the cluster's user). Otherwise it returns holding the entry's
// exclusive lock: the run builds the entry, packs and writes it (or releases the lock).
func openCache(ctx context.Context, c *cluster, specs []TemplateSpec, log io.Writer) (*cacheRun, error) {
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	if err := untrusted(root, true); err != nil { // cache_trust.go
		return nil, err
	}
	key, err := cacheKey(c, specs)
	if err != nil {
		return nil, fmt.Errorf("computing the cache key: %w", err)
	}
	cr := &cacheRun{dir: filepath.Join(root, key), key: key, specs: specs}
	if cr.lock, err = os.OpenFile(cr.dir+".lock", os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600); err != nil {
		return nil, err
	}
	if err := errors.Join(untrusted(cr.lock.Name(), false), untrustedEntry(cr.dir)); err != nil {
		cr.lock.Close()
		return nil, err
	}
	// Readers share the lock; a builder has it alone.
	if err := flock(ctx, cr.lock, syscall.LOCK_SH); err != nil {
		cr.lock.Close()
		return nil, err
	}
	if err := cr.restore(c); err == nil {
		return cr, cr.release()
	} else if !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(log, "scratch: the cache entry %s is unusable (%v): rebuilding it\n", cr.dir, err)
	}
	// Readers wait for a builder, so four runs that start at once build the entry once. (The
	// shared lock is released first: flock would drop it anyway, not upgrade it atomically.)
	_ = syscall.Flock(int(cr.lock.Fd()), syscall.LOCK_UN)
	if err := flock(ctx, cr.lock, syscall.LOCK_EX); err != nil {
		cr.lock.Close()
		return nil, err
	}
	// Another run may have built it while this one waited.
	if err := cr.restore(c); err == nil {
		return cr, cr.release()
	}
	// Incomplete, corrupted or absent: this run builds it (an old one and what killed builders
	// left go first).
	if err := os.RemoveAll(cr.dir); err != nil {
		cr.release()
		return nil, err
	}
	stale, _ := filepath.Glob(cr.dir + ".tmp-*")
	for _, d := range stale {
		os.RemoveAll(d)
	}
	return cr, nil
}

// flock takes a lock on f, waiting for it until ctx ends.
func flock(ctx context.Context, f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// release lets go of the entry's lock.
func (cr *cacheRun) release() error {
	if cr.lock == nil {
		return nil
	}
	err := cr.lock.Close() // closing the last descriptor releases the flock
	cr.lock = nil
	return err
}

// restore copies the entry into c's data directory, checking every file against the manifest,
// and reads the entry's superuser password. An entry without a manifest is fs.ErrNotExist; on
// any error the data directory is emptied again.
func (cr *cacheRun) restore(c *cluster) (err error) {
	b, err := os.ReadFile(filepath.Join(cr.dir, "manifest.json"))
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("reading its manifest: %w", err)
	}
	if m.Format != cacheFormat || m.Key != cr.key || len(m.Templates) != len(specKeys(cr.specs)) {
		return errors.New("its manifest is of another entry")
	}
	secret, err := os.ReadFile(filepath.Join(cr.dir, "secret"))
	if err != nil {
		return err
	}
	in, err := os.Open(filepath.Join(cr.dir, dataFile))
	if err != nil {
		return err
	}
	defer in.Close()
	var total int64
	for _, e := range m.Files {
		if !filepath.IsLocal(e.Path) || e.Size < 0 {
			return fmt.Errorf("its manifest names %q", e.Path)
		}
		total += e.Size
	}
	if st, err := in.Stat(); err != nil || st.Size() != total {
		return fmt.Errorf("%s is not as long as its manifest says", dataFile)
	}
	data := filepath.Join(c.dir, "data")
	defer func() {
		if err != nil {
			emptyData(c.dir)
		}
	}()
	uid, gid := -1, -1
	if c.sb.cred != nil {
		uid, gid = c.sb.ids()
	}
	if err := restoreFiles(data, m.Files, in, uid, gid); err != nil {
		return err
	}
	for _, t := range m.Templates {
		if t.Description != nil && crc32c(t.Description) != t.DescriptionCRC32C {
			return fmt.Errorf("the description of %s does not match its manifest", t.Name)
		}
	}
	cr.hit, cr.secret = &m, strings.TrimSpace(string(secret))
	return nil
}

// countTemplates says how many templates there are: "no templates", "1 template", "2 templates".
func countTemplates(n int) string {
	switch n {
	case 0:
		return "no templates"
	case 1:
		return "1 template"
	}
	return fmt.Sprintf("%d templates", n)
}

// crc32c returns b's CRC-32C in hex, as manifests record it.
func crc32c(b []byte) string {
	return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, castagnoli)))
}

// dataFile holds the contents of an entry's files, one after the other in the manifest's
// order: one file to read or write instead of a thousand or more (on a disk, creating them cost
// more than copying them).
const dataFile = "data.bin"

// emptyData removes what is in the data directory of the cluster directory dir, leaving it,
// and following no link out of dir (see hostfs.go).
func emptyData(dir string) {
	root, err := openClusterDir(dir)
	if err != nil {
		return
	}
	defer root.Close()
	removeContents(root, "data", 1)
}

// restoreFiles makes the entry's files and directories under data, from in (the entry's data
// file, which holds the files' contents one after the other in the manifest's order), given to
// uid and gid (-1: unchanged). The directories are made first, in order; the files are then
// written by two workers, each from its own offset of in (half the bytes each), which halves the
// copy's wall time on the two cores the run's other work leaves idle at this point.
func restoreFiles(data string, files []manifestEntry, in *os.File, uid, gid int) error {
	type job struct {
		e   manifestEntry
		off int64
	}
	var jobs []job
	var off int64
	for _, e := range files {
		if e.Mode.IsDir() {
			if err := makeDir(filepath.Join(data, e.Path), e.Mode.Perm(), uid, gid); err != nil {
				return err
			}
			continue
		}
		jobs = append(jobs, job{e, off})
		off += e.Size
	}
	// Split where the first half of the bytes ends.
	split := sort.Search(len(jobs), func(i int) bool { return jobs[i].off >= off/2 })
	var g fault.Group
	for _, part := range [][]job{jobs[:split], jobs[split:]} {
		g.Go(func() error {
			buf := make([]byte, 256<<10)
			for _, j := range part {
				r := io.NewSectionReader(in, j.off, j.e.Size)
				if err := writeFile(filepath.Join(data, j.e.Path), j.e, r, buf, uid, gid); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// makeDir makes the directory dst with mode perm (whatever the umask) for uid and gid (-1:
// unchanged).
func makeDir(dst string, perm fs.FileMode, uid, gid int) error {
	if err := os.Mkdir(dst, perm); err != nil {
		return err
	}
	if err := os.Chmod(dst, perm); err != nil { // the umask applied at creation
		return err
	}
	if uid >= 0 {
		return os.Lchown(dst, uid, gid)
	}
	return nil
}

// writeFile makes the file e at dst with the next e.Size bytes of r, with e's mode (whatever the
// umask), for uid and gid (-1: unchanged), and checks it against e's CRC-32C when e has one.
func writeFile(dst string, e manifestEntry, r io.Reader, buf []byte, uid, gid int) error {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, e.Mode.Perm())
	if err != nil {
		return err
	}
	h := crc32.New(castagnoli)
	n, err := io.CopyBuffer(io.MultiWriter(out, h), io.LimitReader(r, e.Size), buf)
	if err == nil {
		err = out.Chmod(e.Mode.Perm()) // the umask applied at creation
	}
	if err == nil && uid >= 0 {
		err = out.Chown(uid, gid)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != e.Size || e.CRC32C != "" && hex.EncodeToString(h.Sum(nil)) != e.CRC32C {
		return fmt.Errorf("%s does not match its manifest", e.Path)
	}
	return nil
}

// pack reads the stopped cluster's data directory into an entry's manifest and data file
// contents (about 40 MB, in memory until write has written them). No process of the cluster
// runs while it reads, and it reads through the cluster directory's root, only directories and
// regular files: a link anywhere in it is an error (nothing cached), never followed.
func (cr *cacheRun) pack(c *cluster, version string, tpls []cachedTpl) (*manifest, []byte, error) {
	root, err := openClusterDir(c.dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	m := &manifest{Format: cacheFormat, Key: cr.key, Postgres: version, Templates: tpls}
	spare := spareWAL(root)
	// One buffer the size of the files: grown by doubling as they are read, its 60 MB cost more
	// CPU in zeroing and copying new buffers than reading the files does.
	var data bytes.Buffer
	data.Grow(int(regularBytes(root.FS())))
	err = fs.WalkDir(root.FS(), "data", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, "data"), "/")
		if rel == "" || rel == "postmaster.pid" || rel == "postmaster.opts" || spare[rel] {
			return nil
		}
		e := manifestEntry{Path: rel}
		switch {
		case d.Type() == fs.ModeDir:
			st, err := root.Lstat(path)
			if err != nil {
				return err
			}
			e.Mode = st.Mode() & (fs.ModeDir | fs.ModePerm)
		case d.Type().IsRegular():
			// The cluster is stopped: what is copied is what the digest is of.
			in, err := root.Open(path)
			if err != nil {
				return err
			}
			st, err := in.Stat()
			if err == nil && !st.Mode().IsRegular() {
				err = fmt.Errorf("%s is not a regular file", rel)
			}
			if err != nil {
				in.Close()
				return err
			}
			e.Mode = st.Mode() & fs.ModePerm
			h := crc32.New(castagnoli)
			e.Size, err = io.Copy(io.MultiWriter(&data, h), in)
			in.Close()
			if err != nil {
				return err
			}
			e.CRC32C = hex.EncodeToString(h.Sum(nil))
		default:
			return fmt.Errorf("%s is neither a file nor a directory", rel)
		}
		m.Files = append(m.Files, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return m, data.Bytes(), nil
}

// regularBytes is the size of the regular files under data in fsys, a hint: 0 where it cannot
// be read.
func regularBytes(fsys fs.FS) int64 {
	var n int64
	_ = fs.WalkDir(fsys, "data", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// write writes a packed entry into a temporary directory, the manifest last, with the
// superuser's password, and renames it into place. The run holds the entry's exclusive lock
// (openCache).
func (cr *cacheRun) write(m *manifest, data []byte, secret string) error {
	tmp := cr.dir + ".tmp-" + randomSuffix()
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := os.WriteFile(filepath.Join(tmp, dataFile), data, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "secret"), []byte(secret+"\n"), 0o600); err != nil {
		return err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, cr.dir); err != nil {
		if exists(filepath.Join(cr.dir, "manifest.json")) {
			return nil // another run saved it (its lock file was removed by cache clean meanwhile)
		}
		return err
	}
	evict(filepath.Dir(cr.dir), cr.dir)
	return nil
}

// spareWAL returns the WAL segments of a cleanly stopped cluster that need not be copied (paths
// relative to the data directory): all but the two lowest-numbered. A checkpoint removes or
// recycles, under a later name, every segment before its redo point's, and a shutdown
// checkpoint's redo point is its own record: so the lowest segment holds it, and the next one
// its end, should it cross a segment boundary. The others are empty segments kept for reuse,
// which the server makes again as it needs them.
func spareWAL(root *os.Root) map[string]bool {
	d, err := root.Open("data/pg_wal")
	if err != nil {
		return nil
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil
	}
	var segs []string
	for _, e := range ents {
		if len(e.Name()) == 24 && strings.Trim(e.Name(), "0123456789ABCDEF") == "" && e.Type().IsRegular() {
			segs = append(segs, e.Name())
		}
	}
	slices.Sort(segs)
	spare := map[string]bool{}
	for _, s := range segs[min(2, len(segs)):] {
		spare[filepath.Join("pg_wal", s)] = true
	}
	return spare
}

// touch records that the entry was used (its lock file's time), for eviction.
func (cr *cacheRun) touch() {
	now := time.Now()
	_ = os.Chtimes(cr.dir+".lock", now, now)
}

// evict removes the least recently used entries beyond maxCacheEntries, never keep, and none
// another run holds a lock on.
func evict(root, keep string) {
	locks, _ := filepath.Glob(filepath.Join(root, "*.lock"))
	type used struct {
		lock string
		at   time.Time
	}
	var all []used
	for _, l := range locks {
		dir := strings.TrimSuffix(l, ".lock")
		if st, err := os.Stat(l); err == nil && dir != keep && exists(dir) {
			all = append(all, used{l, st.ModTime()})
		}
	}
	if len(all) < maxCacheEntries {
		return
	}
	slices.SortFunc(all, func(a, b used) int { return a.at.Compare(b.at) })
	for _, u := range all[:len(all)+1-maxCacheEntries] {
		if removeEntry(u.lock) == nil {
			os.Remove(u.lock)
		}
	}
}

// removeEntry removes the entry of a lock file when no run uses it, and its temporary
// directories; the lock file stays (a run may have it open).
func removeEntry(lock string) error {
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("%s is in use", strings.TrimSuffix(lock, ".lock"))
	}
	dir := strings.TrimSuffix(lock, ".lock")
	tmps, _ := filepath.Glob(dir + ".tmp-*")
	for _, d := range append(tmps, dir) {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

// CacheInfo describes the cache across runs.
type CacheInfo struct {
	Dir     string // where it is
	Entries int    // complete entries
	Bytes   int64  // its size on disk, everything in it counted
}

// ReadCacheInfo returns where the cache is, how many entries it holds and its size.
func ReadCacheInfo() (CacheInfo, error) {
	dir, err := CacheDir()
	if err != nil {
		return CacheInfo{}, fault.Env(err)
	}
	info := CacheInfo{Dir: dir}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Name() == "manifest.json" && filepath.Dir(filepath.Dir(path)) == dir {
			info.Entries++
		}
		if st, err := d.Info(); err == nil && !d.IsDir() {
			info.Bytes += st.Size()
		}
		return nil
	})
	if err != nil {
		return info, fault.Env(fmt.Errorf("reading the cache %s: %w", dir, err))
	}
	return info, nil
}

// CleanCache removes every entry of the cache that no running ledgercheck uses, and returns how
// many it removed; an entry in use is an error once the others are removed.
func CleanCache() (int, error) {
	dir, err := CacheDir()
	if err != nil {
		return 0, fault.Env(err)
	}
	locks, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	n := 0
	var errs []error
	for _, l := range locks {
		had := exists(strings.TrimSuffix(l, ".lock") + "/manifest.json")
		if err := removeEntry(l); err != nil {
			errs = append(errs, err)
			continue
		}
		os.Remove(l)
		if had {
			n++
		}
	}
	if len(errs) > 0 {
		return n, fault.Env(fmt.Errorf("cleaning the cache: %w", errors.Join(errs...)))
	}
	if ents, _ := os.ReadDir(dir); len(ents) == 0 {
		os.Remove(dir)
	}
	return n, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// startEmbedded starts the embedded cluster: a copy of the cache's entry when Options.Cache
// and the cache has it; else a new one (initdb), which, with Options.Cache, builds the
// templates and is saved as the entry before Start returns.
func (s *Server) startEmbedded(ctx context.Context, bin string) error {
	cl, err := newCluster(bin, s.opts)
	if cl != nil {
		s.cl = cl
		cl.onSize = s.scratchSize
	}
	if err != nil {
		return err
	}
	s.adminRole, s.major, s.installRole, s.readerRole, s.observerRole = bootstrapUser, cl.major, "postgres", NamePrefix+"reader", NamePrefix+"observer"
	t0 := time.Now()
	var cr *cacheRun
	if specs := cachedSpecs(s.opts.Templates); s.opts.Cache && cacheable(specs) {
		s.uses.know(specs)
		if cr, err = openCache(ctx, cl, specs, s.opts.Log); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(s.opts.Log, "scratch: not using the cache: %v\n", err)
			cr = nil
		}
	}
	if cr != nil && cr.hit != nil {
		err := s.startFromCache(ctx, cr, time.Since(t0))
		if err == nil || ctx.Err() != nil {
			return err
		}
		// An entry its key did not tell apart (a library the server loads changed, say): it
		// goes, and this run starts from scratch.
		fmt.Fprintf(s.opts.Log, "scratch: the cached cluster %s did not start (%v): removing it\n", cr.dir, err)
		_ = removeEntry(cr.dir + ".lock")
		cl.stop()
		s.cl, s.templates, s.uses = nil, map[templateKey]*template{}, templUses{}
		opts := s.opts
		opts.Cache = false
		s.opts = opts
		return s.startEmbedded(ctx, bin)
	}
	if cr != nil {
		defer func() {
			if !cr.keep {
				cr.release()
			}
		}()
	}
	if err := cl.initdb(ctx); err != nil {
		return err
	}
	if err := cl.start(ctx); err != nil {
		return err
	}
	s.admin = cl.adminConfig()
	if err := s.setUp(ctx); err != nil {
		return err
	}
	if cr == nil {
		return nil
	}
	return s.saveToCache(ctx, cr)
}

// saveToCache builds the templates of the run's entry in the new cluster (before any other SQL
// runs in it), stops the cluster cleanly, saves its data directory as the entry and starts it
// again. A template that does not build (a prerequisite file that fails) is not cached: the run
// reports it as without the cache.
func (s *Server) saveToCache(ctx context.Context, cr *cacheRun) error {
	t0 := time.Now()
	var tpls []cachedTpl
	for _, k := range specKeys(cr.specs) {
		i := slices.IndexFunc(cr.specs, func(sp TemplateSpec) bool {
			return keyOfBase(sp.Dim, sp.Base) == k
		})
		name, err := s.template(ctx, k.dim, cr.specs[i].Base)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(s.opts.Log, "scratch: nothing cached: the template for dimension %d does not build\n", k.dim)
			return nil
		}
		ct := cachedTpl{Dim: k.dim, NoOpenBrain: k.noOpenBrain, Key: k.key, Privileges: k.privileges, Name: name}
		if desc := s.TemplateDescription(k.dim, cr.specs[i].Base); desc != nil {
			ct.Description, ct.DescriptionCRC32C = desc, crc32c(desc)
		}
		tpls = append(tpls, ct)
	}
	if err := s.dropEnvironmentTemplates(ctx); err != nil { // no entry holds them (envtemplate.go)
		return err
	}
	built := time.Now()
	s.unhold() // the warden's session ends with the cluster; its transaction wrote nothing kept
	if err := s.dropLoginsNow(ctx); err != nil {
		fmt.Fprintf(s.opts.Log, "scratch: nothing cached: %v\n", err)
		return s.hold(ctx)
	}
	s.closeKept(false) // they would not outlive the cluster's stop
	if err := s.cl.shutdown(); err != nil {
		return fault.Env(fmt.Errorf("stopping the scratch cluster to cache it: %w", err))
	}
	m, data, err := cr.pack(s.cl, s.Version(), tpls)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "scratch: nothing cached: %v\n", err)
	}
	packed := time.Now()
	if err := s.cl.start(ctx); err != nil {
		return err
	}
	if err := s.hold(ctx); err != nil {
		return err
	}
	if m == nil {
		return nil
	}
	// Written while the run goes on; other runs wait for the lock, and Close for the write.
	secret := s.cl.adminSecret
	s.saving = make(chan struct{})
	cr.keep = true
	go func() {
		defer close(s.saving)
		defer cr.release()
		var perr error
		defer func() {
			if perr != nil {
				fmt.Fprintf(s.opts.Log, "scratch: nothing cached: %v\n", perr)
			}
		}()
		defer fault.Recover(&perr)
		w0 := time.Now()
		if err := cr.write(m, data, secret); err != nil {
			fmt.Fprintf(s.opts.Log, "scratch: nothing cached: %v\n", err)
			return
		}
		cr.touch()
		fmt.Fprintf(s.opts.Log, "scratch: cluster and %s cached in %s (templates %s, stop and read %s, written in %s beside the run)\n", countTemplates(len(tpls)), cr.dir,
			built.Sub(t0).Round(time.Millisecond), packed.Sub(built).Round(time.Millisecond), time.Since(w0).Round(time.Millisecond))
	}()
	return nil
}

// startFromCache starts the cluster copied from the cache, replaces the passwords of the
// superuser and the install role with the run's own before anything else connects, and takes
// the entry's templates as the run's (renamed after the run).
func (s *Server) startFromCache(ctx context.Context, cr *cacheRun, copied time.Duration) error {
	t0 := time.Now()
	cl := s.cl
	fresh := cl.adminSecret
	cl.adminSecret = cr.secret
	if err := cl.start(ctx); err != nil {
		return err
	}
	pw, err := passwordSQL(fresh, s.installPass, s.readerPass, s.observerPass)
	if err != nil {
		return fault.Env(err)
	}
	var sql strings.Builder
	for i, role := range []string{bootstrapUser, s.installRole, s.readerRole, s.observerRole} {
		fmt.Fprintf(&sql, "ALTER ROLE %s PASSWORD %s;\n", ident(role), pw[i])
	}
	for _, k := range specKeys(cr.specs) {
		i := slices.IndexFunc(cr.hit.Templates, func(t cachedTpl) bool {
			return t.Dim == k.dim && t.NoOpenBrain == k.noOpenBrain && t.Key == k.key && t.Privileges == k.privileges
		})
		if i < 0 {
			return fault.Env(fmt.Errorf("the cache entry %s has no template for dimension %d: run `ledgercheck cache clean`", cr.dir, k.dim))
		}
		s.tplSeq++
		t := &template{label: k.label(s.tplSeq), desc: cr.hit.Templates[i].Description, ownSettings: cr.hit.Templates[i].Description == nil}
		t.name = fmt.Sprintf("%s%s_%s", NamePrefix, s.runID, t.label)
		t.once.Do(func() {})
		s.templates[k] = t
		fmt.Fprintf(&sql, "ALTER DATABASE %s RENAME TO %s;\n", ident(cr.hit.Templates[i].Name), ident(t.name))
	}
	// One session for it all: it logged in with the entry's password, which it replaces (a
	// session outlives its password).
	conn, err := pgx.ConnectConfig(ctx, cl.adminConfig())
	if err != nil {
		return fault.Env(serverErrorf(err, "connecting"))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql.String()); err != nil {
		return fault.Env(serverErrorf(err, "taking over the cached cluster"))
	}
	cl.adminSecret = fresh
	s.admin = cl.adminConfig()
	if err := s.checkVector(ctx, conn); err != nil {
		return err
	}
	if err := s.checkGuard(ctx, conn); err != nil {
		return err
	}
	if err := s.hold(ctx); err != nil {
		return err
	}
	cr.touch()
	fmt.Fprintf(s.opts.Log, "scratch: cluster and %s copied from the cache %s in %s, started in %s\n", countTemplates(len(cr.hit.Templates)), cr.dir, copied.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	return nil
}
