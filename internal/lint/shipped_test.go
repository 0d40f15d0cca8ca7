package lint

import (
	"bytes"
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// shippedConfig is the lint section of the shipped default configuration
// (internal/config/default.yaml, which internal/config embeds; lint's tests cannot import it),
// the policy lint applies to Open Brain sidecars without a configuration.
func shippedConfig(t testing.TB) Config {
	t.Helper()
	b, err := os.ReadFile("../config/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lint yaml.Node `yaml:"lint"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	section, err := yaml.Marshal(&doc.Lint)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(bytes.NewReader(section))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
