package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ledgercheck/ledgercheck/internal/scratch/env"
)

// The stand-in extensions (internal/scratch/env/ext: pg_cron, pg_net, supabase_vault) are shown
// to the embedded server in its own extension directory, inside the sandbox only: the sandbox
// mounts a file system of its own over the server's extension directory, holding a symbolic
// link to every file of the real one (bound read-only at innerRealExtensionDir) except those of
// the stand-ins' names, and the stand-ins' files, then makes it read-only. Nothing is written to the host's
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

// extensionSetup is what the sandbox needs to show the stand-ins: bubblewrap's arguments, and
// the files whose descriptors they name.
type extensionSetup struct {
	args  []string
	files []*os.File
}

// extensionArgs returns the bubblewrap arguments that show, at extDir (the server's extension
// directory), a read-only directory of the sandbox's own: a link to each file of the real one
// (bound read-only at innerRealExtensionDir) that is not a stand-in's, and the stand-ins' files,
// read from pipes whose descriptors start at fd. Nothing of it is a file on the host that the
// sandbox could have replaced.
func extensionArgs(extDir string, fd int) (extensionSetup, error) {
	var x extensionSetup
	real := extDir
	if r, err := filepath.EvalSymlinks(real); err == nil {
		real = r
	}
	ents, err := os.ReadDir(real)
	if err != nil {
		return x, err
	}
	x.args = append(x.args, "--ro-bind", real, innerRealExtensionDir, "--tmpfs", extDir)
	for _, e := range ents {
		if !standInFile(e.Name()) {
			x.args = append(x.args, "--symlink", innerRealExtensionDir+"/"+e.Name(), extDir+"/"+e.Name())
		}
	}
	for _, s := range env.Extensions() {
		f, err := dataPipe(s.SQL)
		if err != nil {
			for _, f := range x.files {
				f.Close()
			}
			return extensionSetup{}, err
		}
		x.args = append(x.args, "--ro-bind-data", strconv.Itoa(fd+len(x.files)), extDir+"/"+s.Name)
		x.files = append(x.files, f)
	}
	x.args = append(x.args, "--remount-ro", extDir)
	return x, nil
}
