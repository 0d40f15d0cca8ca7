package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// InitRepository is what `ledgercheck init` writes for a repository (a configuration of
// version 3): its sidecars, a Supabase project's migrations directory, and the files it leaves
// out, each with why.
type InitRepository struct {
	// Command is the command line that wrote it, for the header.
	Command string
	// Sidecars are the sidecars, each after those it needs.
	Sidecars []InitSidecar
	// Migrations is a Supabase project's migrations directory ("" none), at MigrationsDim.
	Migrations    string
	MigrationsDim int
	// LeftOut are the SQL files that are not checked.
	LeftOut []InitLeftOut
}

// InitSidecar is one sidecar `ledgercheck init` lists: its name, file (relative to the
// configuration's directory), dimension and the sidecars it was found to need, with why (one
// line each, written as a comment above its entry).
type InitSidecar struct {
	Name, File string
	Dim        int
	Needs      []string
	Why        []string
}

// InitLeftOut is a SQL file init leaves out of the configuration, and why.
type InitLeftOut struct{ File, Why string }

// repositoryHeader heads the configuration init writes for a repository.
const repositoryHeader = `# ledgercheck's configuration for this repository (version 3), written by
# ` + "`%s`" + `. Review it: each sidecar's needs were found from what its
# file uses that another sidecar creates (relations, columns another file adds, functions,
# types, schemas, policies; function bodies included, not SQL built at run time), and the
# comment above an entry says why. ` + "`ledgercheck check`" + ` installs each sidecar over its needs
# and, when one does not install because of an object another sidecar creates, names the need.
# ` + "`ledgercheck init --update`" + ` adds the files the repository gains and keeps what is written
# here. An entry takes the keys of a version 2 file (ports, previous, prerequisites, fixture,
# probes, rerun, lint); the keys at the top level are every sidecar's defaults.
version: %d
sidecars:
`

// migrationsEntry is the entry of a Supabase project's migrations: the policy that fits a
// project's own migrations, which is not the sidecar contract.
const migrationsEntry = `  # A Supabase project's migrations, applied in name order, each over the ones before it: every
  # .sql file of the directory is a sidecar named after its file. ` + "`check --changed REF`" + ` checks the
  # migrations a branch adds, over the others as REF has them, and reports an edit of a merged
  # one (merged-migration-edited). A project's own migrations are not sidecars: no Open Brain
  # prerequisites, they run once (no rerun audit), and the sidecar contract is not their policy.
  - migrations: %s
    dim: %d
    prerequisites: {openbrain: false}
    rerun: {times: 1}
    lint:
      # The Data API's roles are a project's own to grant to (per-user row level security).
      allowed_grantees: [anon, authenticated]
      untrusted_extensions: [%s]
      severity:
        modifies-existing-object: off # a later migration alters what an earlier one created
        attaches-to-existing-table: off # triggers, policies and indexes on earlier tables
        not-idempotent: off # a migration runs once (supabase_migrations.schema_migrations)
        missing-notify-reload: off # Supabase's event triggers reload PostgREST's schema cache
        table-no-service-role-grant: off # service_role bypasses row level security
        table-no-service-role-policy: off
        missing-explicit-grant: off # default privileges grant what a project expects
`

// RepositoryConfig returns the configuration of version 3 `ledgercheck init` writes for a
// repository. It passes [Parse] as written.
func RepositoryConfig(in InitRepository) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, repositoryHeader, strings.ReplaceAll(in.Command, "\n", " "), RepositoryVersion)
	for _, s := range in.Sidecars {
		b.WriteString(sidecarEntry(s))
	}
	if in.Migrations != "" {
		fmt.Fprintf(&b, migrationsEntry, yamlScalar(in.Migrations), in.MigrationsDim, strings.Join(DefaultLint().UntrustedExtensions, ", "))
	}
	if len(in.LeftOut) > 0 {
		b.WriteString("\n# SQL files left out, not checked:\n")
		for _, l := range in.LeftOut {
			fmt.Fprintf(&b, "#   %s: %s\n", oneLine(l.File), oneLine(l.Why))
		}
	}
	return []byte(b.String())
}

// sidecarEntry is a sidecar's entry: the reasons of its needs as comments, then the entry on
// one line.
func sidecarEntry(s InitSidecar) string {
	var b strings.Builder
	for _, w := range s.Why {
		fmt.Fprintf(&b, "  # %s\n", oneLine(w))
	}
	fmt.Fprintf(&b, "  - {name: %s, file: %s, dim: %d", yamlScalar(s.Name), yamlScalar(s.File), s.Dim)
	if len(s.Needs) > 0 {
		needs := make([]string, len(s.Needs))
		for i, n := range s.Needs {
			needs[i] = yamlScalar(n)
		}
		fmt.Fprintf(&b, ", needs: [%s]", strings.Join(needs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

// oneLine is s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// UpdateRepository adds to the configuration of version 3 c (src, its content) what in has that
// it lacks: each sidecar whose file no entry names (in's names and needs must be the
// configuration's: see [Configured]), and the migrations entry. It edits the file's YAML node
// tree, so that every entry, key and comment a reviewer wrote stays. It returns the new content
// and what it added.
func UpdateRepository(c *Config, src []byte, in InitRepository) ([]byte, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s: reading the configuration's document tree: not the mapping Parse read (%v)", c.Path, err)
	}
	seq := mappingValue(doc.Content[0], "sidecars")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("%s: no sidecars list to add to", c.Path)
	}
	configured, _ := c.Configured()
	hasMigrations := slices.ContainsFunc(c.Sidecars, func(s Sidecar) bool { return s.Migration })
	var added []string
	for _, s := range in.Sidecars {
		if _, ok := configured[absIn(filepath.Dir(c.Path), s.File)]; ok {
			continue
		}
		n, err := entryNode(sidecarEntry(s))
		if err != nil {
			return nil, nil, err
		}
		seq.Content = append(seq.Content, n)
		added = append(added, s.Name)
	}
	if in.Migrations != "" && !hasMigrations {
		n, err := entryNode(fmt.Sprintf(migrationsEntry, yamlScalar(in.Migrations), in.MigrationsDim, strings.Join(DefaultLint().UntrustedExtensions, ", ")))
		if err != nil {
			return nil, nil, err
		}
		seq.Content = append(seq.Content, n)
		added = append(added, "the migrations of "+in.Migrations)
	}
	seq.Style = 0
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", c.Path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", c.Path, err)
	}
	return out.Bytes(), added, nil
}

// Configured returns the sidecars of c (a configuration of version 3) by their file (absolute,
// clean), and every name c gives a sidecar: what `init --update` keeps.
func (c *Config) Configured() (byFile map[string]string, names map[string]bool) {
	byFile, names = map[string]string{}, map[string]bool{}
	for _, s := range c.Sidecars {
		byFile[absIn(filepath.Dir(c.Path), s.Config.Artifact.File)] = s.Name
		names[s.Name] = true
	}
	return byFile, names
}

// entryNode is the node of one entry of sidecars, written as text (its comments included).
func entryNode(text string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("sidecars:\n"+text), &doc); err != nil {
		return nil, fmt.Errorf("an entry init writes does not parse, please report it: %w", err)
	}
	seq := mappingValue(doc.Content[0], "sidecars")
	n := seq.Content[0]
	if n.HeadComment == "" && seq.HeadComment != "" {
		n.HeadComment = seq.HeadComment
	}
	return n, nil
}

// mappingValue is the value of key in the mapping node m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// absIn is file, relative to dir when not absolute, made absolute and clean.
func absIn(dir, file string) string {
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return filepath.Clean(file)
}
