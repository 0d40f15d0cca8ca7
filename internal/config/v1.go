package config

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// configV1 is a configuration of version 1: two variants, left (the artifact) and right (the
// one port), a top-level allowlist, and environment where version 2 has prerequisites.
type configV1 struct {
	Version  int `yaml:"version"`
	Variants struct {
		Left  variantV1 `yaml:"left"`
		Right variantV1 `yaml:"right"`
	} `yaml:"variants"`
	Environment struct {
		// Prerequisites is "builtin" (prerequisites.openbrain: true) or "none" (false).
		Prerequisites string `yaml:"prerequisites"`
		// Extra is prerequisites.files.
		Extra []string `yaml:"extra"`
	} `yaml:"environment"`
	Allowlist string `yaml:"allowlist"`
	Shared    `yaml:",inline"`
}

// variantV1 is a variant of version 1 (no dsn).
type variantV1 struct {
	File     string `yaml:"file"`
	Dim      int    `yaml:"dim"`
	Previous string `yaml:"previous"`
}

// keysV1 are the version 1 names of version 2 keys, for messages and lines.
var keysV1 = map[string]string{
	"artifact":                "variants.left",
	"ports.0.allowlist":       "allowlist",
	"ports.0":                 "variants.right",
	"prerequisites.openbrain": "environment.prerequisites",
	"prerequisites.files":     "environment.extra",
}

// decodeV1 decodes data, a configuration of version 1 whose parse is doc, strictly and maps it
// onto c.
func (c *Config) decodeV1(data []byte, doc *yaml.Node) error {
	var v1 configV1
	if err := decodeKnown(data, doc, &v1); err != nil {
		return c.yamlError(data, err)
	}
	c.keys = keysV1
	c.Version, c.Shared = 1, v1.Shared
	c.Artifact = Variant{File: v1.Variants.Left.File, Dim: v1.Variants.Left.Dim, Previous: v1.Variants.Left.Previous}
	if r := v1.Variants.Right; r != (variantV1{}) {
		c.Ports = []Port{{Variant: Variant{File: r.File, Dim: r.Dim, Previous: r.Previous}, Allowlist: v1.Allowlist}}
	}
	switch v1.Environment.Prerequisites {
	case "", "builtin":
		c.Prerequisites.OpenBrain = true
	case "none":
	default:
		return c.errAt(c.Line("prerequisites.openbrain"), "environment.prerequisites %s: want builtin or none", strconv.Quote(v1.Environment.Prerequisites))
	}
	c.Prerequisites.Files = v1.Environment.Extra
	return nil
}
