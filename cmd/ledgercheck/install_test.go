package main

// Tests of how ledgercheck is installed: go install from a module proxy, and make build's stamp.

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// parser, compiled once per module cache directory, comes from the build cache; the version is
// new on each run (another work tree's run cannot stand in for this one's) and removed from the
// module cache afterwards.
func TestGoInstallFromAModuleProxy(t *testing.T) {
	version := fmt.Sprintf("v0.99.0-test.%d.%d", os.Getpid(), time.Now().UnixNano())
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	modcache := goEnv("GOMODCACHE")
	t.Cleanup(func() {
		os.RemoveAll(filepath.Join(modcache, filepath.FromSlash(modulePath)+"@"+version))
		at := filepath.Join(modcache, "cache", "download", filepath.FromSlash(modulePath), "@v")
		dl, _ := filepath.Glob(filepath.Join(at, version+".*"))
		for _, f := range dl {
			os.Remove(f)
		}
		if list, _ := os.ReadFile(filepath.Join(at, "list")); strings.TrimSpace(string(list)) == version {
			os.Remove(filepath.Join(at, "list"))
		}
	})
	proxy := t.TempDir()
	writeProxyModule(t, proxy, version)
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

// writeProxyModule writes the work tree (its tracked and untracked, not ignored, regular files)
// into dir as version of the module, in a module proxy's layout.
func writeProxyModule(t *testing.T, dir, version string) {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = repoRoot
	list, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the module's files are those of a git work tree)", err)
	}
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
		w, err := zw.Create(modulePath + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
