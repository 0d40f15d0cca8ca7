package config

import (
	"strconv"
	"strings"
	"testing"
)

// The command line's overrides: the port flags act on the one configured port, replace several
// with --port FILE, need it otherwise; a variant read from a database drops its configured file;
// every dimension is checked, whichever flag set it.
func TestOverride(t *testing.T) {
	two := func() *Config {
		c := Default()
		c.Ports = append(c.Ports, Port{Name: "other", Variant: Variant{File: "other.sql", Dim: 768}})
		return c
	}
	dim := func(n int) *int { return &n }
	for _, tc := range []struct {
		name    string
		cfg     *Config
		o       Overrides
		want    string // the ports after, or the error
		wantErr bool
	}{
		{"one port, its dimension", Default(), Overrides{PortDim: dim(768)}, "production-1024:768", false},
		{"several ports, a dimension alone", two(), Overrides{PortDim: dim(768)}, "--port-dim: the configuration has 2 ports", true},
		{"several ports, --port replaces them", two(), Overrides{PortFile: "mine.sql", PortDim: dim(512)}, "mine:512", false},
		{"--only keeps one", two(), Overrides{Only: "other"}, "other:768", false},
		{"--only of no port", two(), Overrides{Only: "nope"}, "--only nope: the configuration has no port of that name", true},
		{"a dimension out of range", Default(), Overrides{ArtifactDim: dim(0)}, "--artifact-dim", true},
		{"a port dimension out of range", Default(), Overrides{PortDim: dim(16001)}, "--port-dim", true},
		{"times below one", Default(), Overrides{Times: dim(0)}, "--times 0: want at least 1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Override(tc.o)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Override = %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range tc.cfg.Ports {
				got = append(got, p.Name+":"+itoa(p.Dim))
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("ports %v, want %s", got, tc.want)
			}
		})
	}
	c := Default()
	if err := c.Override(Overrides{PortDSN: "postgres://reader@db/postgres"}); err != nil {
		t.Fatal(err)
	}
	if p := c.Ports[0]; p.DSN == "" || p.File != "" || p.Previous != "" {
		t.Errorf("a port read from a database keeps its configured file: %+v", p.Variant)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
