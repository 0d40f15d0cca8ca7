package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// Config is lint's policy, the `lint:` section of ledgercheck.yaml. The zero Config knows no
// pre-existing object; the Open Brain policy lint applies without a configuration is the lint
// section of the shipped default configuration (internal/config/default.yaml).
type Config struct {
	// Existing lists objects assumed to exist before the file runs (the prerequisites), written
	// as [pgsql.Object.String] renders them: "table public.thoughts", "function
	// public.upsert_thought". Creating one of them (CREATE OR REPLACE, CREATE ... IF NOT EXISTS)
	// counts as changing it.
	Existing []string `yaml:"existing"`
	// Allow lists what the file may do to objects it did not create.
	Allow []Allowance `yaml:"allow"`
	// AllowedGrantees are roles, besides service_role, that new objects may be granted to
	// (e.g. "authenticated" for a table meant for the Data API). PUBLIC is "public".
	AllowedGrantees []string `yaml:"allowed_grantees"`
	// DefinerCallers are reviewed exceptions to security-definer-public-execute: the API roles
	// a SECURITY DEFINER function is meant to be called by, with a reason.
	DefinerCallers []DefinerCaller `yaml:"definer_callers"`
	// ExposedSchemas are the schemas the Data API serves (PostgREST's db-schemas), which the
	// installed audit checks and observes; empty means public and graphql_public, as on a
	// default Supabase project.
	ExposedSchemas []string `yaml:"exposed_schemas"`
	// PrivilegeModels are the kinds of project the installed audit answers for, by their
	// default privileges on public: "new-defaults" (hosted Supabase since 2026-10-30: new
	// tables get no privileges for the API roles) and "old-defaults" (self-hosted projects,
	// whose default privileges grant ALL on new tables, sequences and functions to anon,
	// authenticated and service_role). Empty means both: a sidecar is installed into both.
	PrivilegeModels []string `yaml:"privilege_models"`
	// UntrustedExtensions are extensions whose creation is reported by unsafe-server-access.
	UntrustedExtensions []string `yaml:"untrusted_extensions"`
	// Severity overrides rules' default severities: error, warning, info, or off.
	Severity map[string]string `yaml:"severity"`
}

// Allowance is one configured exception for an object the file did not create.
type Allowance struct {
	// Object is the object as [pgsql.Object.String] renders it, e.g.
	// "trigger trg_agent_decision_ledger_enroll on public.agent_memories".
	Object string `yaml:"object"`
	// Actions are the verbs allowed on it: create, alter, drop, rename, truncate, comment, grant,
	// revoke.
	Actions []string `yaml:"actions"`
	// Reason says why a reviewer accepted it; required.
	Reason string `yaml:"reason"`
	// Trigger pins the trigger a reviewer accepted, for an entry that lets the file create a
	// trigger: a CREATE TRIGGER of that name with another timing, events, level or function is
	// not allowed by it (allow_trigger.go).
	Trigger *TriggerPin `yaml:"trigger"`
}

// DefinerCaller says that API roles are meant to execute a SECURITY DEFINER function.
type DefinerCaller struct {
	// Function is the function with its argument types, "public.search_public_notes(text)".
	Function string `yaml:"function"`
	// Roles are the API roles meant to call it: anon, authenticated.
	Roles []string `yaml:"roles"`
	// Reason says why a reviewer accepted it; required.
	Reason string `yaml:"reason"`
}

var allowanceActions = map[string]bool{"create": true, "alter": true, "drop": true, "rename": true, "truncate": true, "comment": true, "grant": true, "revoke": true}

// LoadConfig decodes a configuration from YAML, rejecting unknown fields, unknown rule ids and
// malformed allowances. Fields absent from the YAML keep their zero value.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := input.Read(r, "the lint configuration", input.Config)
	if err != nil {
		return Config{}, err
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("decoding lint configuration: %w", err)
	}
	return c, c.Validate()
}

// Validate checks the configuration against the rule registry.
func (c Config) Validate() error {
	for id, sev := range c.Severity {
		if !configurable(id) {
			if c := didyoumean.Closest(id, ConfigurableIDs()); c != "" {
				return fmt.Errorf("lint configuration: severity for unknown rule %q: did you mean %s?", id, c)
			}
			return fmt.Errorf("lint configuration: severity for unknown rule %q (valid: %s)", id, strings.Join(ConfigurableIDs(), ", "))
		}
		switch sev {
		case "error", "warning", "info", "off":
		default:
			return fmt.Errorf("lint configuration: severity %q for rule %q: want error, warning, info or off", sev, id)
		}
	}
	for i, a := range c.Allow {
		if strings.TrimSpace(a.Object) == "" {
			return fmt.Errorf("lint configuration: allow entry %d has no object", i+1)
		}
		if strings.TrimSpace(a.Reason) == "" {
			return fmt.Errorf("lint configuration: allow entry for %q has no reason", a.Object)
		}
		if len(a.Actions) == 0 {
			return fmt.Errorf("lint configuration: allow entry for %q has no actions", a.Object)
		}
		for _, act := range a.Actions {
			if !allowanceActions[act] {
				return fmt.Errorf("lint configuration: allow entry for %q: unknown action %q", a.Object, act)
			}
		}
		if err := a.Trigger.validate(a.Object); err != nil {
			return err
		}
	}
	for _, c := range c.DefinerCallers {
		fn, err := pgsql.ParseFunctionRef(c.Function)
		if err != nil || !fn.HasArgs {
			return fmt.Errorf("lint configuration: definer_callers: function %q: want a function with its argument types, e.g. public.f(text)", c.Function)
		}
		if strings.TrimSpace(c.Reason) == "" {
			return fmt.Errorf("lint configuration: definer_callers entry for %q has no reason", c.Function)
		}
		if len(c.Roles) == 0 {
			return fmt.Errorf("lint configuration: definer_callers entry for %q has no roles", c.Function)
		}
		for _, r := range c.Roles {
			if r != "anon" && r != "authenticated" {
				return fmt.Errorf("lint configuration: definer_callers entry for %q: role %q: want anon or authenticated", c.Function, r)
			}
		}
	}
	for _, m := range c.PrivilegeModels {
		if m != NewDefaults && m != OldDefaults {
			return fmt.Errorf("lint configuration: privilege_models: unknown model %q: want %s or %s", m, NewDefaults, OldDefaults)
		}
	}
	for _, e := range c.Existing {
		if kind, ref, ok := strings.Cut(strings.TrimSpace(e), " "); ok && (kind == "function" || kind == "procedure") {
			if _, err := pgsql.ParseFunctionRef(ref); err != nil {
				return fmt.Errorf("lint configuration: existing entry %q: %w", e, err)
			}
		}
	}
	return nil
}

// The privilege models of [Config.PrivilegeModels].
const (
	NewDefaults = "new-defaults"
	OldDefaults = "old-defaults"
)

// Models returns the privilege models the audit answers for: [Config.PrivilegeModels], or both.
func (c Config) Models() []string {
	if len(c.PrivilegeModels) == 0 {
		return []string{NewDefaults, OldDefaults}
	}
	var out []string
	for _, m := range []string{NewDefaults, OldDefaults} {
		if slices.Contains(c.PrivilegeModels, m) {
			out = append(out, m)
		}
	}
	return out
}

// Exposed returns the schemas the Data API serves: [Config.ExposedSchemas], or public and
// graphql_public (Supabase's db-schemas).
func (c Config) Exposed() []string {
	if len(c.ExposedSchemas) == 0 {
		return []string{"public", "graphql_public"}
	}
	return c.ExposedSchemas
}

// callerAllowed reports whether configuration says role is meant to execute fn.
func (c Config) callerAllowed(fn pgsql.Object, role string) bool {
	for _, dc := range c.DefinerCallers {
		ref, err := pgsql.ParseFunctionRef(dc.Function)
		if err == nil && ref.Name == fn.Name && ref.SameArgs(fn) && slices.Contains(dc.Roles, role) {
			return true
		}
	}
	return false
}

// active returns the rules Run applies under c: those with a Check that c leaves on, each a
// copy carrying c's severity for it.
func (c Config) active() []*Rule {
	var out []*Rule
	for _, r := range Rules() {
		sev, on := c.severity(r)
		if r.Check == nil || !on {
			continue
		}
		rr := *r
		rr.Severity = sev
		out = append(out, &rr)
	}
	return out
}

// severity returns the configured severity of rule r, and whether the rule is on.
func (c Config) severity(r *Rule) (finding.Severity, bool) {
	switch c.Severity[r.ID] {
	case "off":
		return "", false
	case "error":
		return finding.SevError, true
	case "warning":
		return finding.SevWarning, true
	case "info":
		return finding.SevInfo, true
	}
	return r.Severity, true
}

// configurablePhases are the phases whose rules' severities lint.severity sets: lint's, and the
// check of the installed bodies (internal/bodies), which reads them with [Config.SeverityOf].
var configurablePhases = []finding.Phase{finding.PhaseLint, finding.PhaseBodies}

// configurable reports whether lint.severity may set the severity of rule id.
func configurable(id string) bool {
	r, ok := rule.Registered(id)
	return ok && slices.Contains(configurablePhases, r.Phase)
}

// ConfigurableIDs returns the ids of the rules whose severity lint.severity sets, sorted.
func ConfigurableIDs() []string {
	var ids []string
	for _, id := range rule.IDs() {
		if configurable(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// SeverityOf returns the severity lint.severity gives rule id (its default when it gives none),
// and whether the rule is on: how a phase other than lint whose rules lint.severity configures
// (the installed bodies') reads it.
func (c Config) SeverityOf(id string) (finding.Severity, bool) {
	r, _ := rule.Registered(id)
	return c.severity(&Rule{Rule: r})
}

// allows reports whether configuration allows verb on the object rendered as obj.
func (c Config) allows(obj, verb string) bool {
	for _, a := range c.Allow {
		if a.Object != obj {
			continue
		}
		for _, act := range a.Actions {
			if act == verb {
				return true
			}
		}
	}
	return false
}
