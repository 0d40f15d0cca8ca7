package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// Overrides are the command line's changes to a configuration (the flags of check, parity and
// allowlist suggest): a string field changes its key when not "", a pointer when not nil. The
// errors name the flags.
type Overrides struct {
	// Only keeps the configured port of this name.
	Only string
	// ArtifactFile, ArtifactDSN and ArtifactDim, ArtifactPrevious change the artifact; a DSN
	// reads it from that database, with the file ArtifactFile names, or none.
	ArtifactFile, ArtifactDSN, ArtifactPrevious string
	ArtifactDim                                 *int
	// PortFile and PortDSN replace the configured ports with one port (with one configured port,
	// they change it); PortDim, Allowlist and PortPrevious change the one port, and need PortFile
	// or PortDSN when several are configured.
	PortFile, PortDSN       string
	PortDim                 *int
	Allowlist, PortPrevious *string
	// NoAllowlist drops every port's allowlist.
	NoAllowlist bool
	// Fixture replaces the fixture; Times the rerun audit's times (at least 1).
	Fixture string
	Times   *int
	// TableStats replaces table_stats (--table-stats).
	TableStats string
}

// Override applies o to c: the artifact's overrides to the artifact, the port's to the one
// configured port (or to a new one when there is none). With several configured ports,
// PortFile (or PortDSN) replaces them, and the other port overrides need it; Only keeps one of
// them. A variant read from a database has the file its override names, or none: a configured
// file says nothing about what that database holds. Every dimension is checked afterwards.
func (c *Config) Override(o Overrides) error {
	if o.Only != "" {
		i := slices.IndexFunc(c.Ports, func(p Port) bool { return p.Name == o.Only })
		if i < 0 {
			return fault.Input(fmt.Errorf("--only %s: the configuration has no port of that name (its ports: %s)", o.Only, c.PortNames()))
		}
		c.Ports = c.Ports[i : i+1]
	}
	overrideVariant(&c.Artifact, o.ArtifactDSN, o.ArtifactFile, o.ArtifactDim)
	if o.ArtifactPrevious != "" {
		c.Artifact.Previous = o.ArtifactPrevious
	}
	if err := c.overridePort(o); err != nil {
		return err
	}
	if o.NoAllowlist {
		for i := range c.Ports {
			c.Ports[i].Allowlist = ""
		}
	}
	if o.Fixture != "" {
		c.Fixture = o.Fixture
	}
	if o.TableStats != "" {
		c.TableStats = o.TableStats
	}
	if o.Times != nil {
		if *o.Times < 1 {
			return fault.Input(fmt.Errorf("--times %d: want at least 1", *o.Times))
		}
		c.Rerun.Times = *o.Times
	}
	return c.checkDims(o)
}

// overrideVariant points v at the database dsn (dropping its file and previous version), at
// file, and at dimension dim, each when given.
func overrideVariant(v *Variant, dsn, file string, dim *int) {
	if dsn != "" {
		v.DSN, v.File, v.Previous = dsn, "", ""
	}
	if file != "" {
		v.File = file
	}
	if dim != nil {
		v.Dim = *dim
	}
}

// overridePort applies the port's overrides of o (see [Config.Override]).
func (c *Config) overridePort(o Overrides) error {
	replacing := o.PortFile != "" || o.PortDSN != ""
	changed := map[string]bool{"port-dim": o.PortDim != nil, "allowlist": o.Allowlist != nil, "port-previous": o.PortPrevious != nil}
	changing := changed["port-dim"] || changed["allowlist"] || changed["port-previous"]
	if len(c.Ports) > 1 {
		if !replacing {
			for _, name := range []string{"port-dim", "allowlist", "port-previous"} {
				if changed[name] {
					return fault.Input(fmt.Errorf("--%s: the configuration has %d ports (%s); pass --port FILE to check one port instead of them, or --only NAME", name, len(c.Ports), c.PortNames()))
				}
			}
		} else {
			c.Ports = nil
		}
	}
	if !replacing && !changing {
		return nil
	}
	if len(c.Ports) == 0 {
		c.Ports = []Port{{Name: "port"}}
	}
	p := &c.Ports[0]
	overrideVariant(&p.Variant, o.PortDSN, o.PortFile, o.PortDim)
	if o.PortFile != "" {
		p.Name = NameOf(o.PortFile)
	}
	if o.Allowlist != nil {
		p.Allowlist = *o.Allowlist
	}
	if o.PortPrevious != nil && *o.PortPrevious != "" {
		p.Previous = *o.PortPrevious
	}
	return nil
}

// checkDims checks the dimension of every variant the flags o set (scratch.CheckDim), naming
// the flag; a variant o gave a file or a database without a dimension has the default one, as
// a configured variant without dim: has (applyDefaults). A variant that is not there (a
// configuration for lint alone) has no dimension to check: the command that needs it says so.
func (c *Config) checkDims(o Overrides) error {
	if err := checkDim(&c.Artifact, o.ArtifactDim, "--artifact-dim"); err != nil {
		return err
	}
	for i := range c.Ports {
		if err := checkDim(&c.Ports[i].Variant, o.PortDim, "--port-dim"); err != nil {
			return err
		}
	}
	return nil
}

// checkDim checks v's dimension when the flag called name set it (typed), and gives a variant
// with none the default.
func checkDim(v *Variant, typed *int, name string) error {
	switch {
	case typed != nil:
		if err := scratch.CheckDim(v.Dim); err != nil {
			return fault.Input(fmt.Errorf("%s %w", name, err))
		}
	case v.Dim == 0 && (v.File != "" || v.DSN != ""):
		v.Dim = scratch.DefaultDim
	}
	return nil
}

// PortNames lists the configured ports' names ("none" without ports), for messages.
func (c *Config) PortNames() string {
	var names []string
	for _, p := range c.Ports {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
