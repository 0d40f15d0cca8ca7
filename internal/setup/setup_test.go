package setup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteCarriesTheCheckoutsFiles: the files setup writes out are the checkout's, byte for byte
// (the script, guard-container.sh, the guard's source and Makefile, pg_config.c, the AppArmor
// profile), the scripts executable: the binary carries what make setup runs.
func TestWriteCarriesTheCheckoutsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	for written, checkout := range map[string]string{
		setupScript:                       "scripts/setup.sh",
		containerScript:                   "scripts/guard-container.sh",
		pgConfigSource:                    "scripts/pgconfig/pg_config.c",
		apparmorProfile:                   "scripts/apparmor/ledgercheck-bwrap",
		guardDir + "/ledgercheck_guard.c": "internal/scratch/guard/c/ledgercheck_guard.c",
		guardDir + "/Makefile":            "internal/scratch/guard/c/Makefile",
	} {
		got, err := os.ReadFile(filepath.Join(dir, written))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("../..", checkout))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is not %s", written, checkout)
		}
	}
	for _, s := range []string{setupScript, containerScript} {
		if st, err := os.Stat(filepath.Join(dir, s)); err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, mode %v; want 0755", s, err, st.Mode())
		}
	}
}

// TestPrepareKeepsWhatCommandsName: root's directory (it runs the install itself) is removed
// afterwards; another user's is under the user's cache directory and stays, since the commands
// setup prints for root name its files.
func TestPrepareKeepsWhatCommandsName(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir, cleanup, err := Prepare(false)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	digest, _ := Digest()
	if want := filepath.Join(cache, "ledgercheck-setup", digest); dir != want {
		t.Errorf("another user's directory is %s, want %s", dir, want)
	}
	if _, err := os.Stat(filepath.Join(dir, guardDir, "ledgercheck_guard.c")); err != nil {
		t.Errorf("another user's files are gone after the run: %v", err)
	}
	dir, cleanup, err = Prepare(true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, setupScript)); err != nil {
		t.Fatal(err)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("root's directory %s is still there: %v", dir, err)
	}
}
