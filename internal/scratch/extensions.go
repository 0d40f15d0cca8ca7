package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"ledgercheck/internal/scratch/env"
)

// The stand-in extensions (internal/scratch/env/ext: pg_cron, pg_net, supabase_vault) are shown
// to the embedded server in its own extension directory, inside the sandbox only: the sandbox
// binds a directory of the cluster's own over the server's extension directory, holding a
// symbolic link to every file of the real one (bound read-only at innerRealExtensionDir) except
// those of the stand-ins' names, and the stand-ins' files. Nothing is written to the host's
// PostgreSQL installation, and a pg_cron or pg_net the host may have installed is not seen
// (neither could run here: each needs shared_preload_libraries, and pg_cron's launcher would
// run jobs).

// innerRealExtensionDir is where the server's real extension directory appears in the sandbox.
const innerRealExtensionDir = "/run/ledgercheck-extension"

// extensionDirs remembers extensionDir's answers for the process.
var extensionDirs sync.Map

// extensionDir returns the extension directory of the PostgreSQL server in binDir (`pg_config
// --sharedir`/extension), or "" when it cannot be found: the server then runs without the
// stand-ins, and the environment's scripts create none.
func extensionDir(binDir string) string {
	if d, ok := extensionDirs.Load(binDir); ok {
		return d.(string)
	}
	d := ""
	if out, err := exec.Command(filepath.Join(binDir, "pg_config"), "--sharedir").Output(); err == nil {
		if o := strings.TrimSpace(string(out)); o != "" {
			if st, err := os.Stat(filepath.Join(o, "extension")); err == nil && st.IsDir() {
				d = filepath.Join(o, "extension")
			}
		}
	}
	extensionDirs.Store(binDir, d)
	return d
}

// standInFile reports whether name, a file of an extension directory, belongs to a stand-in's
// extension (its control file or one of its scripts).
func standInFile(name string) bool {
	for _, e := range env.ExtensionNames() {
		if name == e+".control" || strings.HasPrefix(name, e+"--") {
			return true
		}
	}
	return false
}

// layoutExtensions makes dir (the cluster's ext/): a link to each file of the real extension
// directory real that is not a stand-in's, and the stand-ins' files, read-only.
func layoutExtensions(dir, real string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(real)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if standInFile(e.Name()) {
			continue
		}
		if err := os.Symlink(innerRealExtensionDir+"/"+e.Name(), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	for _, s := range env.Extensions() {
		if err := os.WriteFile(filepath.Join(dir, s.Name), []byte(s.SQL), 0o444); err != nil {
			return err
		}
	}
	return nil
}
