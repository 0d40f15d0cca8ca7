package main

import (
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// configPort is a port of a configuration written by [shippedConfigWithPorts].
type configPort struct {
	Name string `yaml:"name"`
	File string `yaml:"file"`
	Dim  int    `yaml:"dim"`
}

// shippedConfigWithPorts writes into dir the repository's ledgercheck.yaml with ports instead of
// its own (each with the shipped allowlist), its paths made absolute, and returns its path: the
// shipped artifact, fixture, previous version, probes, lint and lock settings, checked beside
// ports that a test wrote (run with --allow-outside-repo).
func shippedConfigWithPorts(t *testing.T, dir string, ports []configPort) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "ledgercheck.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	abs := func(m map[string]any, key string) {
		if p, ok := m[key].(string); ok {
			m[key] = filepath.Join(root, p)
		}
	}
	artifact, _ := cfg["artifact"].(map[string]any)
	prereq, _ := cfg["prerequisites"].(map[string]any)
	if artifact == nil || prereq == nil {
		t.Fatalf("ledgercheck.yaml has no artifact or prerequisites mapping")
	}
	abs(artifact, "file")
	abs(artifact, "previous")
	abs(cfg, "fixture")
	files, _ := prereq["files"].([]any)
	for i, f := range files {
		files[i] = filepath.Join(root, f.(string))
	}
	var list []map[string]any
	for _, p := range ports {
		list = append(list, map[string]any{"name": p.Name, "file": p.File, "dim": p.Dim, "allowlist": filepath.Join(root, "allowlist.yaml")})
	}
	cfg["ports"] = list
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ledgercheck.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
