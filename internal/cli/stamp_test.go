package cli

import (
	"runtime/debug"
	"testing"
)

// TestStamp: values set at link time win over the build info; the build info's module version
// (go install ...@v1.2.3), revision (shortened to 12 digits), time and modified flag fill in the
// rest; "(devel)" and no build info give the development version.
func TestStamp(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  [3]string
		modified              bool
	}{
		{"go install @version", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, [3]string{"v1.2.3", "", ""}, false},
		{"checkout with VCS info", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, [3]string{devVersion, "0123456789ab", "2026-11-30T10:00:00Z"}, true},
		{"ldflags win", "v2.0.0", "fedcba987654", "2026-12-01T00:00:00Z", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs}, [3]string{"v2.0.0", "fedcba987654", "2026-12-01T00:00:00Z"}, true},
		{"no build info", "", "", "", nil, [3]string{devVersion, "", ""}, false},
	} {
		v, c, d, m := stamp(tc.version, tc.commit, tc.date, tc.bi)
		if [3]string{v, c, d} != tc.want || m != tc.modified {
			t.Errorf("%s: stamp = %q %q %q %v, want %q %v", tc.name, v, c, d, m, tc.want, tc.modified)
		}
	}
	line := (&versionInfo{Ledgercheck: "v1.2.3", Commit: "0123456789ab", Date: "2026-11-30T10:00:00Z", Modified: true}).line()
	if want := "v1.2.3 (commit 0123456789ab, 2026-11-30T10:00:00Z, modified)"; line != want {
		t.Errorf("line = %q, want %q", line, want)
	}
}
