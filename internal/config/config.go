package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/input"
	"ledgercheck/internal/lint"
	"ledgercheck/internal/scratch"
	"ledgercheck/internal/yamltext"
)

// Version is the only configuration version this package reads.
const Version = 1

// DefaultFile is the configuration file ledgercheck looks for in the working directory.
const DefaultFile = "ledgercheck.yaml"

// Config is ledgercheck.yaml. Paths in it are relative to the file's directory; [Load] resolves
// them, so every path field holds a usable path after loading.
type Config struct {
	// Version must be [Version].
	Version int `yaml:"version"`
	// Variants are the two installs parity compares: the artifact and the port.
	Variants Variants `yaml:"variants"`
	// Environment describes what each scratch database has before a variant is installed.
	Environment Environment `yaml:"environment"`
	// Allowlist is the reviewed differences file (see ledgercheck/allowlist); "" means none, so
	// every difference is unreviewed.
	Allowlist string `yaml:"allowlist"`
	// Fixture is SQL loaded into both installs after the variant, before the probes (`:dim` is
	// substituted with each variant's dimension). "" loads nothing.
	Fixture string `yaml:"fixture"`
	// Probes are the queries whose results must be identical on both installs.
	Probes []Probe `yaml:"probes"`
	// Rerun configures the rerun audit (the check command's; parity ignores it).
	Rerun Rerun `yaml:"rerun"`
	// Lint is lint's policy (see [lint.Config]); absent means the shipped default's
	// ([DefaultLint]).
	Lint lint.Config `yaml:"lint"`
	// Limits bound the time user SQL may take.
	Limits Limits `yaml:"limits"`
	// Postgres is the PostgreSQL major version the gate runs on, 15 or 17; 0 (absent) leaves it
	// to $LEDGERCHECK_PG, else 15. --pg overrides it.
	Postgres int `yaml:"postgres"`

	// Path is the file the configuration was read from ("" for [Default]).
	Path string `yaml:"-"`
	// LintSet reports whether the file had a lint section.
	LintSet bool `yaml:"-"`
	lines   map[string]int
	nlines  int // lines in the file
}

// Variants are the artifact and its port. Configuration version 1 names them variants.left
// and variants.right ([Variants.Key]): these tags are where the file's words meet the code's.
type Variants struct {
	Artifact Variant `yaml:"left"`
	Port     Variant `yaml:"right"`
}

// Key returns the configuration key of the variant called name ("artifact" or "port"):
// "variants.left" or "variants.right".
func (Variants) Key(name string) string {
	if name == "artifact" {
		return "variants.left"
	}
	return "variants.right"
}

// Variant is one install: a migration file at a vector dimension.
type Variant struct {
	// File is the migration.
	File string `yaml:"file"`
	// Dim is the vector dimension the prerequisites are installed at (1 to 16000).
	Dim int `yaml:"dim"`
	// Previous is the previous version of this variant's migration: the rerun audit installs it
	// with the fixture, applies File over it, and compares with a fresh install of File. ""
	// skips the upgrade audit for this variant.
	Previous string `yaml:"previous"`
}

// Environment is what a scratch database holds before the variant.
type Environment struct {
	// Prerequisites is "builtin" (the Supabase environment plus the Open Brain core and the
	// agent-memory schema, at the variant's dimension; the default) or "none" (the environment
	// only).
	Prerequisites string `yaml:"prerequisites"`
	// Extra are SQL files run after the prerequisites in both databases, in order, as the install
	// role (`:dim` substituted): further sidecars a migration depends on.
	Extra []string `yaml:"extra"`
}

// Probe is a query run on both installs after the fixture; the results must be identical, row
// by row and in order, unless an allowlist entry (kind probe) accepts the difference. Each probe
// runs in a transaction that is rolled back, so probes do not see each other's writes.
type Probe struct {
	// Name identifies the probe in reports and allowlist entries; unique.
	Name string `yaml:"name"`
	// SQL is one statement. It must select stable columns: no now(), no random uuids, and an
	// ORDER BY that decides every row's place.
	SQL string `yaml:"sql"`
	// Tolerance, when > 0, is the largest absolute difference at which two numeric values are
	// still equal (floating-point results); 0 compares the text exactly.
	Tolerance float64 `yaml:"tolerance"`
	// Role, when set, runs the probe as that role (SET LOCAL ROLE), e.g. service_role.
	Role string `yaml:"role"`
}

// Rerun configures the rerun audit.
type Rerun struct {
	// Times is how many times the variant is installed in a row (at least 2; default 2). The
	// previous version of each variant, for the upgrade audit, is variants.<side>.previous.
	Times int `yaml:"times"`
}

// Limits bound the time user SQL may take (Go durations: "60s", "2m").
type Limits struct {
	// StatementTimeout is statement_timeout for every statement (default 60s).
	StatementTimeout time.Duration `yaml:"statement_timeout"`
	// LockTimeout is lock_timeout for every statement (default 10s).
	LockTimeout time.Duration `yaml:"lock_timeout"`
	// InstallTimeout bounds one whole install: prerequisites, variant and fixture (default 120s).
	InstallTimeout time.Duration `yaml:"install_timeout"`
}

// defaultYAML is the shipped default configuration (default.yaml beside this file): the one
// place the Open Brain defaults live.
//
//go:embed default.yaml
var defaultYAML []byte

// Default returns the shipped default configuration, used when there is no ledgercheck.yaml: the
// decision ledger's artifact and port, and the lint policy for Open Brain sidecars. Its paths
// are relative to the working directory.
func Default() *Config {
	c, err := Parse(DefaultFile, defaultYAML)
	if err != nil {
		panic("config: the shipped default.yaml does not parse: " + err.Error()) // a build defect
	}
	c.Path = ""
	return c
}

// DefaultLint returns the lint section of the shipped default configuration: what
// `ledgercheck lint` applies without a configuration, and any configuration without a lint:
// section.
func DefaultLint() lint.Config { return Default().Lint }

func (c *Config) applyDefaults() {
	if c.Environment.Prerequisites == "" {
		c.Environment.Prerequisites = "builtin"
	}
	if c.Rerun.Times == 0 {
		c.Rerun.Times = 2
	}
	if c.Limits.StatementTimeout == 0 {
		c.Limits.StatementTimeout = 60 * time.Second
	}
	if c.Limits.LockTimeout == 0 {
		c.Limits.LockTimeout = 10 * time.Second
	}
	if c.Limits.InstallTimeout == 0 {
		c.Limits.InstallTimeout = 120 * time.Second
	}
}

// Load reads and validates the configuration at path and resolves its paths relative to the
// file's directory. Every error is a [fault.Input] error: "path: message" for a file that cannot
// be read (see [input.ReadFile]: missing, not a regular file, over [input.Config]'s limit), else
// "path:line: message".
func Load(path string) (*Config, error) {
	data, err := input.ReadFile(path, input.Config)
	if err != nil {
		return nil, fault.Input(err)
	}
	return Parse(path, data)
}

var (
	lineMsg    = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownKey = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// Parse decodes and validates a configuration read from the file called path; relative paths in
// it are resolved against path's directory.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{Path: path, nlines: bytes.Count(data, []byte("\n")) + 1}
	if line, what := yamltext.Check(data); line > 0 {
		return nil, c.errAt(line, "%s", what)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, c.errAt(1, "the configuration is empty; start it with \"version: %d\"", Version)
		}
		return nil, c.yamlError(data, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 {
		c.lines = map[string]int{}
		indexLines(doc.Content[0], "", c.lines)
	}
	_, c.LintSet = c.lines["lint"]
	if !c.LintSet { // default.yaml has one, so this does not recurse
		c.Lint = DefaultLint()
	}
	c.applyDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	res := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	res(&c.Variants.Artifact.File)
	res(&c.Variants.Port.File)
	res(&c.Allowlist)
	res(&c.Fixture)
	res(&c.Variants.Artifact.Previous)
	res(&c.Variants.Port.Previous)
	for i := range c.Environment.Extra {
		res(&c.Environment.Extra[i])
	}
	return c, nil
}

// yamlError turns a yaml.v3 error into "path:line: message".
func (c *Config) yamlError(data []byte, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		if m := lineMsg.FindStringSubmatch(te.Errors[0]); m != nil {
			n, _ := strconv.Atoi(m[1])
			msg := unknownKey.ReplaceAllString(m[2], "unknown key $1 (see the commented "+DefaultFile+" at the repository root for the keys)")
			msg = strings.ReplaceAll(msg, "into time.Duration", "into a duration (write it as 60s or 2m)")
			msg = strings.ReplaceAll(msg, "into config.Config", "into a configuration (a mapping that starts with version: 1)")
			return c.errAt(n, "%s", msg)
		}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineMsg.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return c.errAt(n, "%s", m[2])
	}
	return c.errAt(yamltext.ErrorLine(msg, data), "%s", msg)
}

// indexLines records the line of every key and sequence item under its dotted path
// ("variants.left.dim", "probes.2.name").
func indexLines(n *yaml.Node, prefix string, out map[string]int) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := join(n.Content[i].Value)
			out[k] = n.Content[i].Line
			indexLines(n.Content[i+1], k, out)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			k := join(strconv.Itoa(i))
			out[k] = item.Line
			indexLines(item, k, out)
		}
	}
}

// Line returns the line of the key at the dotted path, or of its nearest ancestor, or 1.
func (c *Config) Line(path string) int {
	for path != "" {
		if n, ok := c.lines[path]; ok {
			return n
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 1
}

func (c *Config) errAt(line int, format string, args ...any) error {
	if c.nlines > 0 {
		line = min(max(line, 1), c.nlines) // yaml.v3 puts an empty document after "---" on the next line
	}
	return fault.Input(fmt.Errorf("%s:%d: %s", c.Path, line, fmt.Sprintf(format, args...)))
}

func (c *Config) validate() error {
	if c.Version != Version {
		return c.errAt(c.Line("version"), "version %d is not supported; this ledgercheck reads version: %d", c.Version, Version)
	}
	for _, v := range []struct {
		name string
		v    Variant
	}{{"artifact", c.Variants.Artifact}, {"port", c.Variants.Port}} {
		p := c.Variants.Key(v.name)
		if v.v == (Variant{}) {
			// No such variant: a configuration for lint alone, or one whose variants come from
			// flags (--artifact, --port); the commands that need it say so.
			continue
		}
		if v.v.File == "" {
			return c.errAt(c.Line(p), "%s.file is missing: name the migration to install (the %s)", p, v.name)
		}
		if v.v.Dim < 1 || v.v.Dim > 16000 {
			return c.errAt(c.Line(p+".dim"), "%s.dim %d is out of range: want 1 to 16000", p, v.v.Dim)
		}
	}
	switch c.Environment.Prerequisites {
	case "builtin", "none":
	default:
		return c.errAt(c.Line("environment.prerequisites"), "environment.prerequisites %q: want builtin or none", c.Environment.Prerequisites)
	}
	names := map[string]int{}
	for i, p := range c.Probes {
		at := "probes." + strconv.Itoa(i)
		switch {
		case strings.TrimSpace(p.Name) == "":
			return c.errAt(c.Line(at), "probe %d has no name", i+1)
		case strings.TrimSpace(p.SQL) == "":
			return c.errAt(c.Line(at+".sql"), "probe %q has no sql", p.Name)
		case p.Tolerance < 0:
			return c.errAt(c.Line(at+".tolerance"), "probe %q: tolerance %g is negative", p.Name, p.Tolerance)
		}
		if prev, ok := names[p.Name]; ok {
			return c.errAt(c.Line(at+".name"), "probe name %q is used twice (also at line %d)", p.Name, prev)
		}
		names[p.Name] = c.Line(at + ".name")
	}
	if c.Rerun.Times < 2 {
		return c.errAt(c.Line("rerun.times"), "rerun.times %d: want at least 2 (a rerun is a second install)", c.Rerun.Times)
	}
	for _, l := range []struct {
		key string
		d   time.Duration
	}{{"statement_timeout", c.Limits.StatementTimeout}, {"lock_timeout", c.Limits.LockTimeout}, {"install_timeout", c.Limits.InstallTimeout}} {
		if l.d < 0 {
			return c.errAt(c.Line("limits."+l.key), "limits.%s %s is negative", l.key, l.d)
		}
	}
	if c.Postgres != 0 {
		if err := scratch.Supported(c.Postgres); err != nil {
			return c.errAt(c.Line("postgres"), "postgres %d: %v", c.Postgres, err)
		}
	}
	if err := c.Lint.Validate(); err != nil {
		return c.errAt(c.Line("lint"), "%s", strings.TrimPrefix(err.Error(), "lint configuration: "))
	}
	return nil
}
