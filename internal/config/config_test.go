package config

import (
	"cmp"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

func TestShippedConfigLoadsAndResolvesPaths(t *testing.T) {
	c, err := Load("../../ledgercheck.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 || c.Artifact.File != filepath.Join("../..", "migrations/decision_ledger.sql") || c.Artifact.Dim != 1536 || len(c.Ports) != 1 {
		t.Fatalf("artifact %+v, %d ports", c.Artifact, len(c.Ports))
	}
	p := c.Ports[0]
	if p.Name != "production-1024" || p.File != filepath.Join("../..", "migrations/ports/decision_ledger_1024.sql") || p.Dim != 1024 ||
		p.Allowlist != filepath.Join("../..", "allowlist.yaml") || p.Previous != "" || p.DSN != "" {
		t.Errorf("port = %+v", p)
	}
	if c.Fixture != filepath.Join("../..", "testdata/fixtures/ledger_fixture.sql") || c.Artifact.Previous != filepath.Join("../..", "testdata/fixtures/first_cut.sql") {
		t.Errorf("fixture %q, previous %q: not resolved against the file's directory", c.Fixture, c.Artifact.Previous)
	}
	if !c.Prerequisites.OpenBrain || len(c.Prerequisites.Files) != 0 {
		t.Errorf("prerequisites = %+v", c.Prerequisites)
	}
	if len(c.Probes) < 5 || c.Rerun.Times != 3 || c.Limits.InstallTimeout != 120*time.Second || !c.LintSet || len(c.Lint.Allow) != 1 {
		t.Errorf("probes %d rerun %+v limits %+v lint allow %d", len(c.Probes), c.Rerun, c.Limits, len(c.Lint.Allow))
	}
	d := Default()
	if d.Artifact.File != "migrations/decision_ledger.sql" || len(d.Ports) != 1 || d.Ports[0].Name != p.Name || d.Ports[0].Dim != p.Dim {
		t.Errorf("the shipped default's variants differ from ledgercheck.yaml's: %+v %+v", d.Artifact, d.Ports)
	}
}

const v2 = "version: 2\nartifact: {file: a.sql, dim: 1536}\nports:\n  - {file: ports/b_1024.sql, dim: 1024, allowlist: al.yaml}\n"

func TestVersion2(t *testing.T) {
	c, err := Parse("dir/c.yaml", []byte(v2+"  - {name: staging, file: c.sql, dim: 768, previous: c0.sql, dsn: \"host=/tmp dbname=staging\"}\nprerequisites:\n  files: [deps/base.sql]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ports) != 2 || c.Ports[0].Name != "b_1024" || c.Ports[0].Allowlist != "dir/al.yaml" || c.Ports[1].Name != "staging" ||
		c.Ports[1].Previous != "dir/c0.sql" || c.Ports[1].DSN != "host=/tmp dbname=staging" || c.Ports[1].Allowlist != "" {
		t.Errorf("ports = %+v", c.Ports)
	}
	if !c.Prerequisites.OpenBrain || len(c.Prerequisites.Files) != 1 || c.Prerequisites.Files[0] != "dir/deps/base.sql" {
		t.Errorf("prerequisites = %+v", c.Prerequisites)
	}
	if c.Limits.StatementTimeout != 60*time.Second || c.Rerun.Times != 2 || c.LintSet || len(c.Lint.Existing) == 0 {
		t.Errorf("defaults: %+v", c)
	}
	c, err = Parse("c.yaml", []byte("version: 2\nartifact: {file: a.sql, dim: 1536}\nprerequisites: {openbrain: false}\n"))
	if err != nil || len(c.Ports) != 0 || c.Prerequisites.OpenBrain {
		t.Errorf("no ports, no Open Brain: %+v, %v", c, err)
	}
	c, err = Parse("c.yaml", []byte("version: 2\nports:\n  - {name: prod, dsn: \"postgres://reader@db/prod\", dim: 1024}\n"))
	if err != nil || c.Ports[0].File != "" || c.Ports[0].Name != "prod" {
		t.Errorf("a port read from a database only: %+v, %v", c, err)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown key", v2 + "probes:\n  - name: p\n    sql: select 1\n    tolerence: 1\n", "c.yaml:8:5: unknown key tolerence"},
		{"version", "version: 4\n", "c.yaml:1: version 4 is not supported; this ledgercheck reads version: 2 and version: 3 (a repository of sidecars)"},
		{"version 1", "version: 1\nvariants:\n  left: {file: a.sql, dim: 1536}\n", "c.yaml:1: version 1 is not supported"},
		{"no version", "artifact: {file: a.sql, dim: 1}\n", "c.yaml:1: the configuration has no version; start it with \"version: 2\""},
		{"not a mapping", "- 1\n", "c.yaml:1: the configuration is not a mapping"},
		{"empty", "", "c.yaml:1: the configuration is empty"},
		{"dim", strings.Replace(v2, "dim: 1024", "dim: 0", 1), "c.yaml:4: port \"b_1024\": dim 0 is out of range: want 1 to 16000"},
		{"no file", "version: 2\nartifact: {dim: 1536}\n", "c.yaml:2: artifact: file is missing"},
		{"empty port", v2 + "  - {}\n", "c.yaml:5: port 2 is empty"},
		{"unnamed dsn", v2 + "  - {dsn: \"host=/tmp\", dim: 3}\n", "c.yaml:5: port 2 has a dsn and no file: give it a name"},
		{"same name", v2 + "  - {file: other/b_1024.sql, dim: 768}\n", "c.yaml:5: ports 1 and 2 are both named \"b_1024\""},
		{"bad name", v2 + "  - {name: \"my port\", file: c.sql, dim: 768}\n", "c.yaml:5: port 2: name \"my port\": use letters"},
		{"artifact name", v2 + "  - {name: artifact, file: c.sql, dim: 768}\n", "c.yaml:5: port 2: artifact is the artifact's name"},
		{"previous without file", v2 + "  - {name: p, dsn: \"host=/tmp\", dim: 3, previous: p0.sql}\n", "c.yaml:5: port \"p\": previous needs a file"},
		{"duplicate probe", v2 + "probes:\n  - {name: p, sql: select 1}\n  - {name: p, sql: select 2}\n", "c.yaml:7: probe name \"p\" is used twice (also at line 6)"},
		{"empty sql", v2 + "probes:\n  - name: p\n", "c.yaml:6: probe \"p\" has no sql"},
		{"prerequisites", v2 + "prerequisites:\n  openbrain: some\n", `c.yaml:6:14: invalid value "some": want true or false`},
		{"empty file", v2 + "prerequisites:\n  files: [\"\"]\n", "c.yaml:6: prerequisites.files: entry 1 is empty"},
		{"duration", v2 + "limits:\n  lock_timeout: soon\n", "c.yaml:6:"},
		{"size unit", v2 + "limits:\n  scratch_size: 12 apples\n", "c.yaml:6: size \"12 apples\": unknown unit \"apples\""},
		{"size number", v2 + "limits:\n  read_size: lots\n", "c.yaml:6: size \"lots\": want a whole number of bytes with a unit"},
		{"size small", v2 + "limits:\n  server_memory: 512kB\n", "c.yaml:6: limits.server_memory 512kB: want at least 1MB"},
		{"rerun", v2 + "rerun:\n  times: -2\n", "c.yaml:6: rerun.times -2: want at least 1"},
		{"lint", v2 + "lint:\n  severity: {no-such-rule: off}\n", "c.yaml:5: severity for unknown rule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if fault.KindOf(err) != fault.KindInput || strings.Contains(err.Error(), "config.") {
				t.Errorf("%v: not an input error (exit 2), or it names a Go type", err)
			}
		})
	}
}

// A configuration may hold only the lint policy (for `ledgercheck lint` and its pre-commit
// hook); the commands that need variants say so when they are missing.
func TestLintOnlyConfig(t *testing.T) {
	for _, version := range []string{"2"} {
		c, err := Parse("dir/ledgercheck.yaml", []byte("version: "+version+"\nlint:\n  severity:\n    dynamic-sql: off\n"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Artifact != (Variant{}) || len(c.Ports) != 0 || c.Lint.Severity["dynamic-sql"] != "off" {
			t.Errorf("version %s: artifact %+v, ports %+v, lint severity %v", version, c.Artifact, c.Ports, c.Lint.Severity)
		}
	}
}

// The configuration init writes passes Parse as written, with or without a port, whatever the
// file names; it carries the Open Brain defaults of the shipped lint policy, the prerequisites
// as init chose them (with the comment saying why) and no dim: where the file needs none.
func TestTemplate(t *testing.T) {
	for _, in := range []Init{
		{Artifact: "sidecar.sql", Dim: 1536, OpenBrain: true, OpenBrainWhy: []string{"On: the migration uses Open Brain objects:", "  table public.thoughts (sidecar.sql:3:40)"}},
		{Artifact: "migrations/my sidecar: v2.sql", Dim: 768, Port: "ports/#1 port 1024.sql", PortDim: 1024, Allowlist: "allow list.yaml", OpenBrain: true},
		{Artifact: "notes.sql", OpenBrainWhy: []string{"Off: the migration uses no Open Brain object"}},
	} {
		b, err := Template(in)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Parse("dir/ledgercheck.yaml", b)
		if err != nil {
			t.Fatalf("%+v: %v\n%s", in, err, b)
		}
		if c.Version != Version || c.Artifact.File != filepath.Join("dir", in.Artifact) || c.Artifact.Dim != cmp.Or(in.Dim, 1536) || c.Prerequisites.OpenBrain != in.OpenBrain ||
			!c.LintSet || len(c.Lint.Existing) != len(DefaultLint().Existing) || len(c.Lint.UntrustedExtensions) == 0 || len(c.Lint.Allow) != 0 {
			t.Errorf("%+v: loads as %+v", in, c)
		}
		for _, why := range in.OpenBrainWhy {
			if !strings.Contains(string(b), "  # "+why+"\n") {
				t.Errorf("%+v: the configuration does not say %q", in, why)
			}
		}
		if in.Port == "" {
			if len(c.Ports) != 0 {
				t.Errorf("ports = %+v, want none", c.Ports)
			}
			continue
		}
		if len(c.Ports) != 1 || c.Ports[0].Name != "1-port-1024" || c.Ports[0].File != filepath.Join("dir", in.Port) || c.Ports[0].Dim != 1024 ||
			c.Ports[0].Allowlist != filepath.Join("dir", in.Allowlist) {
			t.Errorf("ports = %+v", c.Ports)
		}
	}
}

// TestResourceLimits: the resource limits read as PostgreSQL writes memory sizes (1024-based).
func TestResourceLimits(t *testing.T) {
	c, err := Parse("c.yaml", []byte("version: 2\nartifact: {file: a.sql, dim: 1536}\nlimits:\n  scratch_size: 512MB\n  server_memory: 2 GiB\n  read_size: 67108864\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.ScratchSize != 512<<20 || c.Limits.ServerMemory != 2<<30 || c.Limits.ReadSize != 64<<20 {
		t.Errorf("limits %+v", c.Limits)
	}
	if got := c.Limits.ScratchSize.String(); got != "512MB" {
		t.Errorf("512MB renders as %q", got)
	}
	if _, err := ParseSize("9999999999TB"); err == nil {
		t.Error("a size past 2^62 bytes parses")
	}
}
