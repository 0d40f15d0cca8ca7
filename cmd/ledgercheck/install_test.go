package main

// Tests of how ledgercheck is installed: go install from a module proxy, and make build's stamp.

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// modulePath is the module ledgercheck is published as.
const modulePath = "github.com/ledgercheck/ledgercheck"

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

// TestGoInstallFromAModuleProxy: the module, published as a version on a module proxy, installs
// with `go install github.com/ledgercheck/ledgercheck/cmd/ledgercheck@VERSION` into an empty
// GOPATH, and the binary's `version` names that version (from its build info: no -ldflags). The
// proxy is a directory (GOPROXY=file://...) that the test writes from the work tree in the
// layout of a module proxy (list, .info, .mod, .zip), followed by the machine's own GOPROXY
// setting for the dependencies. The module cache is the machine's, so that pg_query_go's cgo
// parser, compiled once per module cache directory, comes from the build cache. The version is
// named after the content of the module (another work tree's run can stand in for this one's
// only with the same files), so that an unchanged tree's packages, extracted to the same
// directory, come from the build cache too; the version is removed from the module cache
// afterwards by the last run that used it.
func TestGoInstallFromAModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ledgercheck from a module proxy (-short)")
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	modcache := goEnv("GOMODCACHE")
	proxy := t.TempDir()
	version := writeProxyModule(t, proxy)
	holdProxyVersion(t, modcache, version)
	gopath := t.TempDir()
	goproxy := "file://" + filepath.ToSlash(proxy)
	if machine := goEnv("GOPROXY"); machine != "" && machine != "off" {
		goproxy += "," + machine
	}
	cmd := exec.Command("go", "install", modulePath+"/cmd/ledgercheck@"+version)
	cmd.Dir = gopath
	cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOMODCACHE="+modcache, "GOBIN=", "GOPROXY="+goproxy,
		"GOSUMDB=off", "GOTOOLCHAIN=local",
		// -modcacherw: the module's files in the module cache can be removed afterwards.
		"GOFLAGS="+strings.TrimSpace(goEnv("GOFLAGS")+" -modcacherw"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/ledgercheck@%s: %v\n%s", modulePath, version, err, out)
	}
	bin := filepath.Join(gopath, "bin", "ledgercheck")
	out, err := exec.Command(bin, "version", "--json").Output()
	var v struct {
		Ledgercheck string `json:"ledgercheck"`
		PgQuery     string `json:"pg_query_go"`
	}
	if err != nil || json.Unmarshal(out, &v) != nil || v.Ledgercheck != version || !strings.HasPrefix(v.PgQuery, "v5.") {
		t.Errorf("installed ledgercheck version --json: %v, %s; want ledgercheck %s and pg_query_go v5.x", err, out, version)
	}
	first, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(first), "ledgercheck "+version+"\n") {
		t.Errorf("installed ledgercheck --version = %q (%v), want %q", first, err, "ledgercheck "+version)
	}
}

// holdProxyVersion takes a shared lock, for the rest of the test, on the module cache's download
// directory of the module, and removes version from the module cache when the test ends if no
// other run holds the lock then (a run of another work tree with the same files, hence the same
// version, may be installing it).
func holdProxyVersion(t *testing.T, modcache, version string) {
	t.Helper()
	at := filepath.Join(modcache, "cache", "download", filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Open(at)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatalf("locking %s: %v", at, err)
	}
	t.Cleanup(func() {
		defer lock.Close() // releases the lock
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return // another run holds it; the last one removes the version
		}
		os.RemoveAll(filepath.Join(modcache, filepath.FromSlash(modulePath)+"@"+version))
		dl, _ := filepath.Glob(filepath.Join(at, version+".*"))
		for _, f := range dl {
			os.Remove(f)
		}
		if list, _ := os.ReadFile(filepath.Join(at, "list")); strings.TrimSpace(string(list)) == version {
			os.Remove(filepath.Join(at, "list"))
		}
	})
}

// writeProxyModule writes the work tree (its tracked and untracked, not ignored, regular files)
// into dir as a version of the module, in a module proxy's layout, and returns the version:
// v0.99.0-test.h followed by 16 hexadecimal digits of the SHA-256 of the files' names and
// contents.
func writeProxyModule(t *testing.T, dir string) (version string) {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = repoRoot
	list, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the module's files are those of a git work tree)", err)
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	sum := sha256.New()
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		path := filepath.Join(repoRoot, filepath.FromSlash(name))
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() { // deleted in the work tree, or a symbolic link
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{name, data})
		fmt.Fprintf(sum, "%s\x00%d\x00", name, len(data))
		sum.Write(data)
	}
	version = fmt.Sprintf("v0.99.0-test.h%x", sum.Sum(nil)[:8])
	at := filepath.Join(dir, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-12-01T00:00:00Z"}`),
		version + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, fl := range files {
		w, err := zw.Create(modulePath + "@" + version + "/" + fl.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(fl.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return version
}

// TestMakeBuildStampsTheVersion: `make build` stamps the version given (VERSION=, else git
// describe), the commit it builds and the commit's date into the binary, which `version` shows.
func TestMakeBuildStampsTheVersion(t *testing.T) {
	commit, date := gitHead(t)
	bin := filepath.Join(t.TempDir(), "ledgercheck")
	mk := exec.Command("make", "--no-print-directory", "build", "BIN="+bin, "VERSION=v9.8.7-stamp")
	mk.Dir = repoRoot
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	var v struct {
		Ledgercheck, Commit, Date string
	}
	if err != nil || json.Unmarshal(out, &v) != nil || v.Ledgercheck != "v9.8.7-stamp" || v.Commit != commit || v.Date != date {
		t.Errorf("version --json: %v, %s; want ledgercheck v9.8.7-stamp, commit %s, date %s", err, out, commit, date)
	}
	first, _ := exec.Command(bin, "--version").Output()
	if want := "ledgercheck v9.8.7-stamp (commit " + commit + ", " + date; !strings.HasPrefix(string(first), want) {
		t.Errorf("--version = %q, want it to start %q", first, want)
	}
}

// TestMakeDist: `make dist` at a commit a maintainer tagged writes a release archive named after
// the tag and the platform, holding the binary stamped with the tag, README.md, CHANGELOG.md,
// LICENSE and the license files of every module the binary links (licenses/MODULE/...), in a
// directory of the same name, and a SHA256SUMS file that sha256sum -c accepts. The tag is made in
// a scratch clone of the repository (never in the repository itself), whose git directory make
// reads. Then, with that archive alone (outside any checkout, the checkout off PATH): setup has
// nothing to do where setup was done, and init and check work on a sidecar of a user's own
// repository (TestDistBinaryInAUsersRepository).
func TestMakeDist(t *testing.T) {
	commit, _ := gitHead(t)
	scratch := filepath.Join(t.TempDir(), "scratch.git")
	for _, args := range [][]string{
		{"clone", "--quiet", "--bare", "--local", "--no-hardlinks", repoRoot, scratch},
		{"--git-dir", scratch, "update-ref", "--no-deref", "HEAD", commit},
		{"--git-dir", scratch, "tag", "v0.4.2"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	dist := t.TempDir()
	mk := exec.Command("make", "--no-print-directory", "dist", "DIST="+dist)
	mk.Dir = repoRoot
	root, _ := filepath.Abs(repoRoot)
	mk.Env = append(os.Environ(), "GIT_DIR="+scratch, "GIT_WORK_TREE="+root)
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(dist, "ledgercheck_v0.4.2*_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz"))
	if len(archives) != 1 {
		entries, _ := os.ReadDir(dist)
		t.Fatalf("make dist at tag v0.4.2 wrote %v; want one ledgercheck_v0.4.2[-dirty]_%s_%s.tar.gz", entries, runtime.GOOS, runtime.GOARCH)
	}
	name := strings.TrimSuffix(filepath.Base(archives[0]), ".tar.gz")
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || string(out) != name+".tar.gz: OK\n" {
		t.Errorf("sha256sum -c SHA256SUMS: %v, %s; want %s.tar.gz: OK", err, out, name)
	}
	list, err := exec.Command("tar", "-tzf", archives[0]).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{name + "/ledgercheck", name + "/README.md", name + "/CHANGELOG.md", name + "/LICENSE", name + "/licenses/go/LICENSE"}
	mods, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Fields(string(mods)) {
		want = append(want, name+"/licenses/"+m+"/")
	}
	for _, w := range want {
		if !strings.Contains("\n"+string(list), "\n"+w) {
			t.Errorf("the archive lacks %s", w)
		}
	}
	unpack := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", archives[0], "-C", unpack).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, out)
	}
	if lic, err := os.ReadFile(filepath.Join(unpack, name, "LICENSE")); err != nil || !strings.HasPrefix(string(lic), "MIT License\n\nCopyright (c) 2026 the ledgercheck authors\n") {
		t.Errorf("the archive's LICENSE: %v\n%.80s", err, lic)
	}
	bin := filepath.Join(unpack, name, "ledgercheck")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "ledgercheck v0.4.2") {
		t.Errorf("the archive's ledgercheck --version = %q (%v), want the tag v0.4.2", out, err)
	}
	t.Run("outside a checkout", func(t *testing.T) { distBinaryInAUsersRepository(t, bin) })
}

// TestGoInstallAllInstallsLedgercheckAlone: `go install ./...` in the repository, which is how
// pre-commit installs a golang hook (.pre-commit-hooks.yaml), installs the ledgercheck binary and
// none of the developer tools under internal/cmd. The install is the one [binary] does for every
// test of the package (into an empty GOBIN of its own), so the binary is linked once.
func TestGoInstallAllInstallsLedgercheckAlone(t *testing.T) {
	binary(t)
	if strings.Join(installed, " ") != "ledgercheck" {
		t.Errorf("go install ./... installed %v, want ledgercheck alone", installed)
	}
}

// gitHead returns the short commit (12 digits) of the work tree's HEAD and its date as make
// build stamps them, skipping when there is no git work tree.
func gitHead(t *testing.T) (commit, date string) {
	t.Helper()
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	c := exec.Command("git", "rev-parse", "--short=12", "HEAD")
	c.Dir = repoRoot
	out, err := c.Output()
	if err != nil {
		t.Skipf("not a git work tree: %v", err)
	}
	d := exec.Command("git", "show", "-s", "--format=%cI", "HEAD")
	d.Dir = repoRoot
	date2, err := d.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)), strings.TrimSpace(string(date2))
}
