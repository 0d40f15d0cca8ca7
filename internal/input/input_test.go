package input

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/input/inputtest"
)

// small is a kind with a limit small enough to test at the byte.
var small = Kind{Noun: "widget", Plural: "widgets", Limit: 100, Hint: "widgets are small"}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo, opened := inputtest.Fifo(t, "fifo")
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want string // the content, or the error matched as an anchored regular expression
		err  bool
	}{
		{"regular", write("ok", "SELECT 1;\n"), "SELECT 1;\n", false},
		{"empty", write("empty", ""), "", false},
		{"at the limit", write("limit", strings.Repeat("x", 100)), strings.Repeat("x", 100), false},
		{"over the limit", write("big", strings.Repeat("x", 3<<20)), `.*/big: the file is 3\.0 MiB; ledgercheck reads widgets of at most 100 bytes \(widgets are small\)`, true},
		{"missing", filepath.Join(dir, "none"), `.*/none: no such file`, true},
		{"directory", sub, `.*/sub: is a directory, not a widget file`, true},
		// Stat refuses it before open, which would block until a writer came.
		{"fifo", fifo, `.*/fifo: is a named pipe \(FIFO\), not a widget file; ledgercheck reads only regular files \(save the widget to a file and pass that\)`, true},
		{"device", "/dev/zero", `/dev/zero: is a character device, not a widget file; .*`, true},
		{"symlink to a device", link, `.*/zero-link: is a character device, not a widget file; .*`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFile(tc.path, small)
			if !tc.err {
				if err != nil || string(got) != tc.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || got != nil || !regexp.MustCompile("^"+tc.want+"$").MatchString(err.Error()) {
				t.Fatalf("ReadFile = %d bytes, %v; want the error %s", len(got), err, tc.want)
			}
		})
	}
	if opened() {
		t.Error("ReadFile opened the FIFO; it must refuse it before opening")
	}
}

func TestMissingFileIsNotExist(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none"), Config)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want one that wraps fs.ErrNotExist", err)
	}
}

// endless is a reader that never ends and counts what it served.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// Read stops one byte past the limit, whatever the reader could still give: the size of the
// stream is not known, so the message says "over".
func TestReadStopsPastTheLimit(t *testing.T) {
	r := &endless{}
	_, err := Read(io.Reader(r), "stream", Allowlist)
	want := "stream: the file is over 1 MiB; ledgercheck reads allowlists of at most 1 MiB (an allowlist entry pins long values by digest)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if r.n > Allowlist.Limit+64<<10 {
		t.Errorf("read %d bytes from an endless reader; want about the limit, %d", r.n, Allowlist.Limit)
	}
}

// Every kind has a limit and the words its messages use.
func TestKinds(t *testing.T) {
	for _, k := range []Kind{Migration, Fixture, Config, Allowlist} {
		if k.Noun == "" || k.Plural == "" || k.Hint == "" || k.Limit < 64<<10 {
			t.Errorf("kind %+v is incomplete", k)
		}
	}
	if Migration.Limit != 4<<20 {
		t.Errorf("migrations are read up to %d bytes; the documented limit is 4 MiB", Migration.Limit)
	}
}
