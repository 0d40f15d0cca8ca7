package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	texttemplate "text/template"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locks"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/yamltext"
)

// Version is the configuration version of one sidecar ([RepositoryVersion] is a repository of
// them).
const Version = 2

// DefaultFile is the configuration file ledgercheck looks for in the working directory.
const DefaultFile = "ledgercheck.yaml"

// Config is ledgercheck.yaml. Paths in it are relative to the file's directory; [Load] resolves
// them, so every path field holds a usable path after loading.
type Config struct {
	// Version is [Version] or [RepositoryVersion].
	Version int `yaml:"version"`
	// Artifact is the migration under review. A zero Artifact is a configuration for lint
	// alone, or one whose variants come from flags; the commands that need it say so.
	Artifact Variant `yaml:"artifact"`
	// Ports are the variants compared with the artifact, each through its own allowlist. None
	// checks the artifact alone.
	Ports []Port `yaml:"ports"`
	// Prerequisites are what every scratch database holds before a variant is installed.
	Prerequisites Prerequisites `yaml:"prerequisites"`
	// Shared are the keys every version has.
	Shared `yaml:",inline"`

	// Path is the file the configuration was read from ("" for [Default]).
	Path string `yaml:"-"`
	// Scope is the repository [Load] confined the configuration to; every file read on its
	// behalf, and every file named on the command line beside it, is read through it. The zero
	// Scope ([Parse], [Default]) confines nothing.
	Scope input.Scope `yaml:"-"`
	// LintSet reports whether the file had a lint section.
	LintSet bool `yaml:"-"`
	// Sidecars are the sidecars of a file of version 3, in dependency order (see
	// [Config.Repository]); nil for versions 1 and 2.
	Sidecars []Sidecar `yaml:"-"`
	lines    map[string]int
	cols     map[string]int    // the column of every key and sequence item
	nlines   int               // lines in the file
	keys     map[string]string // version 2 key prefixes to the file's own (a sidecar of version 3)
	sidecar  string            // the sidecar's name, for a sidecar of a file of version 3
}

// Shared are the keys that mean the same in every configuration version: a key that does not
// depend on the variants belongs here.
type Shared struct {
	// Fixture is SQL loaded into every install after the variant, before the probes (`:dim` is
	// substituted with each variant's dimension). "" loads nothing.
	Fixture string `yaml:"fixture"`
	// Probes are the queries whose results must be identical on the artifact's install and each
	// port's.
	Probes []Probe `yaml:"probes"`
	// Rerun configures the rerun audit (the check command's; parity ignores it).
	Rerun Rerun `yaml:"rerun"`
	// Lint is lint's policy (see [lint.Config]); absent means the shipped default's
	// ([DefaultLint]).
	Lint lint.Config `yaml:"lint"`
	// Limits bound the time and the resources user SQL may take.
	Limits Limits `yaml:"limits"`
	// Postgres is the PostgreSQL major version the gate runs on, 15 or 17; 0 (absent) leaves it
	// to $LEDGERCHECK_PG, else 15. --pg overrides it.
	Postgres int `yaml:"postgres"`
	// TableStats is production's row counts and sizes per table (JSON or CSV, exported by the
	// query of docs/reference/table-stats.md), which grade every lock the lock trace reports;
	// "" grades them by the fixture's sizes. --table-stats overrides it.
	TableStats string `yaml:"table_stats"`
	// Locks configures the lock trace (check's locks phase).
	Locks Locks `yaml:"locks"`
}

// Locks is the locks section: the reviewed locks of tables that existed before the file, and
// what counts as a slow statement.
type Locks struct {
	// Accept lists the locks a reviewer accepted, each with the table, the strongest mode
	// accepted and a reason.
	Accept []locks.Acceptance `yaml:"accept"`
	// SlowStatement is how long a later statement of a transaction must run, at fixture scale,
	// for a lock held across it to be reported (0: locks.DefaultSlow, 1s).
	SlowStatement time.Duration `yaml:"slow_statement"`
}

// Variant is one install: a migration file at a vector dimension, or a database holding it.
type Variant struct {
	// File is the migration.
	File string `yaml:"file"`
	// Dim is the vector dimension the prerequisites are installed at (see scratch.CheckDim);
	// without a dim: key, scratch.DefaultDim (a migration without vector columns needs none).
	Dim int `yaml:"dim"`
	// Previous is the previous version of this variant's migration: the rerun audit installs it
	// with the fixture, applies File over it, and compares with a fresh install of File. ""
	// skips the upgrade audit for this variant.
	Previous string `yaml:"previous"`
	// DSN, when set, is an existing database that holds this variant (a deployment): parity
	// reads it, read-only, instead of File's install; File, when also set, is what was
	// deployed and is checked as usual. It may hold no password: pgx reads PGPASSWORD and
	// ~/.pgpass.
	DSN string `yaml:"dsn"`
}

// Port is a variant compared with the artifact.
type Port struct {
	// Name names the port in the report (letters, digits, '.', '_' and '-'); default: File's
	// base name without its extension.
	Name    string `yaml:"name"`
	Variant `yaml:",inline"`
	// Allowlist is the reviewed differences between the artifact and this port (see
	// internal/allowlist); "" means none, so every difference is unreviewed.
	Allowlist string `yaml:"allowlist"`
}

// Prerequisites are what a scratch database holds before the variant: the Supabase environment
// always, then these.
type Prerequisites struct {
	// OpenBrain installs the shipped Open Brain core (thoughts, upsert_thought, match_thoughts)
	// and the agent-memory schema at each variant's dimension (default true).
	OpenBrain bool `yaml:"openbrain"`
	// Files are SQL files run after them, in order, as the install role with `:dim` replaced by
	// the variant's dimension: another sidecar the migration depends on.
	Files []string `yaml:"files"`
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
	// Times is how many times each variant is installed in a row (default 2; 1 skips the rerun
	// audit, for migrations that run once). The previous version of each variant, for the
	// upgrade audit, is its previous key.
	Times int `yaml:"times"`
}

// Limits bound the time user SQL may take (Go durations: "60s", "2m") and the resources a run
// may use (sizes: "1GiB", "512MiB"; see internal/scratch/limits.go).
type Limits struct {
	// StatementTimeout is statement_timeout for every statement (default 60s).
	StatementTimeout time.Duration `yaml:"statement_timeout"`
	// LockTimeout is lock_timeout for every statement (default 10s).
	LockTimeout time.Duration `yaml:"lock_timeout"`
	// InstallTimeout bounds one whole install: prerequisites, variant and fixture (default 120s).
	InstallTimeout time.Duration `yaml:"install_timeout"`
	// ScratchSize bounds the embedded cluster's directory, each of its files and its
	// temporary files (default 1GiB).
	ScratchSize Size `yaml:"scratch_size"`
	// ServerMemory bounds the memory of each process of the embedded server (default 1GiB).
	ServerMemory Size `yaml:"server_memory"`
	// ReadSize bounds any one message ledgercheck reads from the server: a catalog query's
	// result, a row (default 64MiB).
	ReadSize Size `yaml:"read_size"`
	// Sidecars bounds how many sidecars one run of a repository checks (default
	// [DefaultMaxSidecars]); NeedsDepth how long a chain of needs under one of them may be
	// (default [DefaultMaxNeedsDepth]). Past either, check stops before it starts, and says so.
	Sidecars   int `yaml:"sidecars"`
	NeedsDepth int `yaml:"needs_depth"`
}

// The default bounds of a repository's run: how many sidecars it checks, and how long a chain
// of needs may be (a Supabase project's migrations are one chain).
const (
	DefaultMaxSidecars   = 200
	DefaultMaxNeedsDepth = 1000
)

// Size is a number of bytes, written with a unit as PostgreSQL writes memory settings: "512kB",
// "64MB", "1GB", "1TB" (each 1024 of the one before; "KiB", "MiB", "GiB", "TiB" too), or a
// plain number of bytes.
type Size int64

// ParseSize parses a [Size]: a whole number, optionally followed (with or without a space) by
// B, kB, KiB, MB, MiB, GB, GiB, TB or TiB.
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if i == 0 || err != nil {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with a unit, such as 512MB or 1GB", s)
	}
	var shift uint
	switch strings.TrimSpace(t[i:]) {
	case "", "B":
	case "kB", "KB", "KiB":
		shift = 10
	case "MB", "MiB":
		shift = 20
	case "GB", "GiB":
		shift = 30
	case "TB", "TiB":
		shift = 40
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, kB, MB, GB or TB)", s, strings.TrimSpace(t[i:]))
	}
	if n > (1<<62)>>shift {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return Size(n << shift), nil
}

// UnmarshalYAML reads a size from a YAML scalar (see [ParseSize]).
func (z *Size) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a size such as 1GB", n.Line)
	}
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*z = v
	return nil
}

// String renders the size as ParseSize reads it, in the largest unit that divides it.
func (z Size) String() string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TB"}, {30, "GB"}, {20, "MB"}, {10, "kB"}} {
		if z != 0 && int64(z)%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", int64(z)>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(z))
}

// Set sets the size from a flag's value (pflag.Value).
func (z *Size) Set(s string) error {
	v, err := ParseSize(s)
	if err != nil {
		return err
	}
	*z = v
	return nil
}

// Type names the flag's value type (pflag.Value).
func (z *Size) Type() string { return "size" }

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
	if c.Rerun.Times == 0 {
		c.Rerun.Times = 2
	}
	if c.Limits.StatementTimeout == 0 {
		c.Limits.StatementTimeout = 60 * time.Second
	}
	if c.Limits.LockTimeout == 0 {
		c.Limits.LockTimeout = 10 * time.Second
	}
	if c.Limits.Sidecars == 0 {
		c.Limits.Sidecars = DefaultMaxSidecars
	}
	if c.Limits.NeedsDepth == 0 {
		c.Limits.NeedsDepth = DefaultMaxNeedsDepth
	}
	if c.Limits.InstallTimeout == 0 {
		c.Limits.InstallTimeout = 120 * time.Second
	}
	for i := range c.Ports {
		if p := &c.Ports[i]; p.Name == "" && p.File != "" {
			p.Name = NameOf(p.File)
		}
	}
	c.defaultDim("artifact", &c.Artifact)
	for i := range c.Ports {
		c.defaultDim("ports."+strconv.Itoa(i), &c.Ports[i].Variant)
	}
}

// defaultDim gives the variant at the dotted path at, when it has a file or a database and no
// dim: key, the prerequisites' dimension (scratch.DefaultDim): a migration without vector
// columns needs none of its own (init writes none for it). A dim: the file gives, 0 included,
// is checked as written.
func (c *Config) defaultDim(at string, v *Variant) {
	if _, given := c.lines[c.Key(at+".dim")]; !given && v.Dim == 0 && (v.File != "" || v.DSN != "") {
		v.Dim = scratch.DefaultDim
	}
}

// NameOf is a port's default name: the base name of its file without the extension, with every
// run of characters a name may not have replaced by '-' ("port" if nothing is left).
func NameOf(file string) string {
	base := filepath.Base(file)
	name := strings.Trim(notInName().ReplaceAllString(strings.TrimSuffix(base, filepath.Ext(base)), "-"), "-._")
	if name == "" {
		return "port"
	}
	return name
}

var notInName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// Load reads and validates the configuration at path and resolves its paths relative to the
// file's directory. Every error is a [fault.Input] error: "path: message" for a file that cannot
// be read (see [input.ReadFile]: missing, not a regular file, over [input.Config]'s limit), else
// "path:line: message".
//
// The configuration is confined to its repository (see [input.Scope]): the git top level of its
// directory, or the directory. The file itself and every path it names (the variants' files and
// previous versions, the allowlists, the fixture, the prerequisite files) must resolve inside it,
// unless allowOutside (--allow-outside-repo); the loaded configuration's Scope confines what is
// read later the same way.
func Load(path string, allowOutside bool) (*Config, error) {
	scope := input.Scope{Root: input.RepoRoot(filepath.Dir(path)), AllowOutside: allowOutside}
	data, err := scope.ReadFile(path, input.Config)
	if err != nil {
		return nil, fault.Input(err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Scope = scope
	for _, x := range append([]*Config{c}, sidecarConfigs(c)...) {
		x.Scope = scope
		for _, p := range x.paths() {
			if err := scope.ConfineConfigured(*p.path, x.Key(p.key)); err != nil {
				return nil, x.errAt(x.Line(p.key), "%v", err)
			}
		}
	}
	return c, nil
}

// configPath is a path field of a configuration and its dotted version 2 key.
type configPath struct {
	key  string
	path *string
}

// paths lists every path field of c with its key, in the file's order: the one list Parse
// resolves and Load confines.
func (c *Config) paths() []configPath {
	ps := []configPath{{"artifact.file", &c.Artifact.File}, {"artifact.previous", &c.Artifact.Previous}}
	for i := range c.Ports {
		at := "ports." + strconv.Itoa(i)
		p := &c.Ports[i]
		ps = append(ps, configPath{at + ".file", &p.File}, configPath{at + ".previous", &p.Previous}, configPath{at + ".allowlist", &p.Allowlist})
	}
	ps = append(ps, configPath{"fixture", &c.Fixture}, configPath{"table_stats", &c.TableStats})
	for i := range c.Prerequisites.Files {
		ps = append(ps, configPath{"prerequisites.files." + strconv.Itoa(i), &c.Prerequisites.Files[i]})
	}
	return ps
}

var intoType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`into config\.Config\b`) })

// Parse decodes and validates a configuration read from the file called path; relative paths in
// it are resolved against path's directory.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{Path: path, nlines: bytes.Count(data, []byte("\n")) + 1}
	if line, what := yamltext.Check(data); line > 0 {
		return nil, c.errAt(line, "%s", what)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, c.yamlError(data, err)
	}
	if len(doc.Content) == 0 {
		return nil, c.errAt(1, "the configuration is empty; start it with \"version: %d\"", Version)
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode {
		return nil, c.errAt(root.Line, "the configuration is not a mapping; start it with \"version: %d\" (see the commented %s at the repository root)", Version, DefaultFile)
	}
	c.lines, c.cols = map[string]int{}, map[string]int{}
	indexLines(doc.Content[0], "", c.lines, c.cols)
	var head struct {
		Version any `yaml:"version"`
	}
	if err := doc.Decode(&head); err != nil {
		return nil, c.yamlError(data, err)
	}
	switch head.Version {
	case Version:
		c.Prerequisites.OpenBrain = true // the default, unless the file says otherwise
		if err := decodeKnown(data, &doc, c); err != nil {
			return nil, c.yamlError(data, err)
		}
	case RepositoryVersion:
		if err := c.decodeV3(data, &doc, filepath.Dir(path)); err != nil {
			return nil, err
		}
	case nil:
		if err := strictDecode(data, &Config{}); err != nil { // an unknown key says more
			return nil, c.yamlError(data, err)
		}
		return nil, c.errAt(1, "the configuration has no version; start it with \"version: %d\"", Version)
	default:
		return nil, c.errAt(c.Line("version"), "version %v is not supported; this ledgercheck reads version: %d and version: %d (a repository of sidecars)", head.Version, Version, RepositoryVersion)
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
	for _, p := range c.paths() {
		if *p.path != "" && !filepath.IsAbs(*p.path) {
			*p.path = filepath.Join(dir, *p.path)
		}
	}
	if c.Version == RepositoryVersion {
		if err := c.finishSidecars(dir); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// sidecarConfigs are the configurations of c's sidecars (version 3; none for another version).
func sidecarConfigs(c *Config) []*Config {
	var cs []*Config
	for _, s := range c.Sidecars {
		cs = append(cs, s.Config)
	}
	return cs
}

// strictDecode decodes data into v, rejecting unknown keys.
func strictDecode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// yamlError turns a yaml.v3 error into "path:line: message".
func (c *Config) yamlError(data []byte, err error) error {
	p := yamltext.Locate(err, data)
	if p.UnknownKey != "" {
		p.Msg = "unknown key " + p.UnknownKey + unknownKeyHint(p.UnknownKey)
	}
	p.Msg = intoType().ReplaceAllString(p.Msg, "into a configuration (a mapping that starts with version: "+strconv.Itoa(Version)+")")
	p.Msg = yamltext.Plain(p.Msg)
	if c.nlines > 0 {
		p.Line = min(max(p.Line, 1), c.nlines)
	}
	return fault.Input(errors.New(p.At(c.Path)))
}

// unknownKeyHint follows "unknown key K" with the nearest key of a configuration, else with
// where the keys are listed.
func unknownKeyHint(key string) string {
	if c := didyoumean.Closest(key, keyNames(&Config{}, &configV3{})); c != "" {
		return " (did you mean " + c + "?)"
	}
	return " (see the commented " + DefaultFile + " at the repository root for the keys)"
}

// indexLines records the line (in out) and column (in cols) of every key and sequence item
// under its dotted path ("artifact.dim", "probes.2.name").
func indexLines(n *yaml.Node, prefix string, out, cols map[string]int) {
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
			out[k], cols[k] = n.Content[i].Line, n.Content[i].Column
			indexLines(n.Content[i+1], k, out, cols)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			k := join(strconv.Itoa(i))
			out[k], cols[k] = item.Line, item.Column
			indexLines(item, k, out, cols)
		}
	}
}

// Key returns the configuration key at the dotted version 2 path ("ports.0.dim") as the file
// writes it: the same path for a file of version 2, the path under its sidecars: entry
// ("sidecars.1.ports.0.dim") for a sidecar of a file of version 3.
func (c *Config) Key(path string) string {
	best, name := "", path
	for v2, own := range c.keys { // the longest version 2 prefix wins
		if len(v2) <= len(best) {
			continue
		}
		if path == v2 {
			best, name = v2, own
		} else if rest, ok := strings.CutPrefix(path, v2+"."); ok {
			best, name = v2, own+"."+rest
		}
	}
	return name
}

// Line returns the line of the key at the dotted version 2 path, or of its nearest ancestor in
// the file, or 1.
func (c *Config) Line(path string) int {
	path = c.Key(path)
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

// portName is the pattern of a port's name: it names phases and appears in messages.
var portName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

func (c *Config) validate() error {
	what := "artifact"
	if c.sidecar != "" {
		what = fmt.Sprintf("sidecar %q", c.sidecar)
	}
	if err := c.validateVariant("artifact", what, c.Artifact); err != nil {
		return err
	}
	names := map[string]int{}
	for i, p := range c.Ports {
		at := "ports." + strconv.Itoa(i)
		switch {
		case p.Name == "" && p.Variant == (Variant{}):
			return c.errAt(c.Line(at), "port %d is empty: give its file (the migration) or dsn (a database that holds it), and its dim", i+1)
		case p.Name == "":
			return c.errAt(c.Line(at), "port %d has a dsn and no file: give it a name", i+1)
		case !portName().MatchString(p.Name):
			return c.errAt(c.Line(at+".name"), "port %d: name %q: use letters, digits, '.', '_' and '-' (it names the port's phases)", i+1, p.Name)
		case p.Name == "artifact":
			return c.errAt(c.Line(at+".name"), "port %d: artifact is the artifact's name; give the port another", i+1)
		}
		if prev, ok := names[p.Name]; ok {
			return c.errAt(c.Line(at), "ports %d and %d are both named %q; give each a name of its own", prev+1, i+1, p.Name)
		}
		names[p.Name] = i
		if p.Variant == (Variant{}) {
			return c.errAt(c.Line(at), "port %q has no file and no dsn: name the migration to install (file) or the database that holds it (dsn)", p.Name)
		}
		if err := c.validateVariant(at, fmt.Sprintf("port %q", p.Name), p.Variant); err != nil {
			return err
		}
	}
	names = map[string]int{}
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
	for i, f := range c.Prerequisites.Files {
		if strings.TrimSpace(f) == "" {
			return c.errAt(c.Line("prerequisites.files."+strconv.Itoa(i)), "%s: entry %d is empty: name a SQL file", c.Key("prerequisites.files"), i+1)
		}
	}
	if c.Rerun.Times < 1 {
		return c.errAt(c.Line("rerun.times"), "rerun.times %d: want at least 1 (2 reruns the file once; 1 skips the rerun audit, as for a project's migrations, which run once)", c.Rerun.Times)
	}
	for _, l := range []struct {
		key string
		d   time.Duration
	}{{"statement_timeout", c.Limits.StatementTimeout}, {"lock_timeout", c.Limits.LockTimeout}, {"install_timeout", c.Limits.InstallTimeout}} {
		if l.d < 0 {
			return c.errAt(c.Line("limits."+l.key), "limits.%s %s is negative", l.key, l.d)
		}
	}
	for _, l := range []struct {
		key string
		z   Size
	}{{"scratch_size", c.Limits.ScratchSize}, {"server_memory", c.Limits.ServerMemory}, {"read_size", c.Limits.ReadSize}} {
		if l.z != 0 && l.z < 1<<20 {
			return c.errAt(c.Line("limits."+l.key), "limits.%s %s: want at least 1MB", l.key, l.z)
		}
	}
	for _, l := range []struct {
		key string
		n   int
	}{{"sidecars", c.Limits.Sidecars}, {"needs_depth", c.Limits.NeedsDepth}} {
		if l.n < 1 {
			return c.errAt(c.Line("limits."+l.key), "limits.%s %d: want at least 1", l.key, l.n)
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
	return c.validateLocks()
}

// validateLocks checks every locks.accept entry (a table with its schema, a lock mode, a
// reason).
func (c *Config) validateLocks() error {
	if c.Locks.SlowStatement < 0 {
		return c.errAt(c.Line("locks.slow_statement"), "locks.slow_statement %s is negative", c.Locks.SlowStatement)
	}
	for i, a := range c.Locks.Accept {
		if err := a.Check(); err != nil {
			return c.errAt(c.Line("locks.accept."+strconv.Itoa(i)), "%v", err)
		}
	}
	return nil
}

// LockAcceptances are the locks.accept entries, each with where it is in the file
// ("ledgercheck.yaml:80"), for the report's notes.
func (c *Config) LockAcceptances() []locks.Acceptance {
	out := make([]locks.Acceptance, len(c.Locks.Accept))
	for i, a := range c.Locks.Accept {
		a.Where = fmt.Sprintf("%s:%d", c.Path, c.Line("locks.accept."+strconv.Itoa(i)))
		if c.Path == "" {
			a.Where = "the shipped configuration's locks.accept"
		}
		out[i] = a
	}
	return out
}

// validateVariant checks the variant at the dotted path at ("artifact", "ports.0"), called
// what in messages. A zero variant is valid: a
// configuration for lint alone, or one whose variants come from flags (--artifact, --port); the
// commands that need it say so.
func (c *Config) validateVariant(at, what string, v Variant) error {
	if v == (Variant{}) {
		return nil
	}
	key := what + ": "
	switch {
	case v.File == "" && v.DSN == "":
		return c.errAt(c.Line(at), "%sfile is missing: name the migration to install, or the database that holds it (dsn)", key)
	case scratch.CheckDim(v.Dim) != nil:
		return c.errAt(c.Line(at+".dim"), "%sdim %v", key, scratch.CheckDim(v.Dim))
	case v.Previous != "" && v.File == "":
		return c.errAt(c.Line(at+".previous"), "%sprevious needs a file: the upgrade audit applies the file over its previous version", key)
	case strings.TrimSpace(v.DSN) != v.DSN:
		return c.errAt(c.Line(at+".dsn"), "%sdsn has leading or trailing spaces", key)
	}
	return nil
}

// initTemplate is the configuration `ledgercheck init` writes (init.yaml.tmpl beside this file).
//
//go:embed init.yaml.tmpl
var initTemplate string

// Init describes the sidecar `ledgercheck init` writes a configuration for: its migration and
// dimension and, optionally, one port with its dimension and allowlist. Paths are written as
// given, relative to the configuration's directory.
type Init struct {
	Artifact string
	// Dim is the artifact's dimension; 0 writes none (a migration without vector columns).
	Dim int
	// Port, when set, is the port's migration, at PortDim, reviewed through Allowlist.
	Port      string
	PortDim   int
	Allowlist string
	// OpenBrain turns the Open Brain prerequisites on; OpenBrainWhy says why (or why not), one
	// comment line each: the Open Brain objects the files use.
	OpenBrain    bool
	OpenBrainWhy []string
}

// Template returns the commented configuration of version 2 for in: the Open Brain defaults
// (prerequisites, the lint policy's existing objects and untrusted extensions, from the shipped
// default), no fixture (the rerun audit generates rows), commented examples of ports, probes, a
// fixture and prerequisite files. It passes [Parse] as written.
func Template(in Init) ([]byte, error) {
	def := DefaultLint()
	tpl, err := texttemplate.New("init").Funcs(texttemplate.FuncMap{"join": strings.Join, "yaml": yamlScalar}).Parse(initTemplate)
	if err != nil {
		return nil, fmt.Errorf("the init template: %w", err)
	}
	data := struct {
		Init
		PortName            string
		Existing, Untrusted []string
	}{Init: in, PortName: NameOf(in.Port), Existing: def.Existing, Untrusted: def.UntrustedExtensions}
	var b bytes.Buffer
	if err := tpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("the init template: %w", err)
	}
	return b.Bytes(), nil
}

// yamlScalar writes s as a YAML scalar: as is when it is a plain path, else double-quoted.
func yamlScalar(s string) string {
	if plainScalar().MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

var plainScalar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./-]*$`) })
