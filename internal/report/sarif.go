package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// SARIF 2.1.0, the subset GitHub code scanning reads (docs.github.com, "SARIF support for code
// scanning").
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool      `json:"tool"`
		ColumnKind string         `json:"columnKind"`
		Results    []sarifResult  `json:"results"`
		Properties map[string]any `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name            string      `json:"name"`
		InformationURI  string      `json:"informationUri,omitempty"`
		Version         string      `json:"version,omitempty"`
		SemanticVersion string      `json:"semanticVersion,omitempty"`
		Rules           []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifHelp       `json:"help"`
		HelpURI              string          `json:"helpUri,omitempty"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           *sarifRuleProps `json:"properties,omitempty"`
	}
	// sarifRuleProps are what GitHub code scanning reads of a rule's properties: a security
	// rule's severity ("security-severity", 0.1 to 10) and its tags.
	sarifRuleProps struct {
		SecuritySeverity string   `json:"security-severity,omitempty"`
		Tags             []string `json:"tags,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
)

// sarifSchema is the schema URI GitHub's documentation uses.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// fingerprintKey names ledgercheck's partial fingerprint.
const fingerprintKey = "ledgercheck/v1"

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.SevError:
		return "error"
	case finding.SevWarning:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run, as GitHub code scanning
// accepts it: every rule with its help text, and one result per finding with its rule id and
// index, level, message, and a location relative to the repository root (uriBaseId %SRCROOT%, never an absolute file:// URI)
// with a 1-based start line and column counted in Unicode code points. A finding without a
// position points at line 1 of its phase's file. Each result carries a partial fingerprint
// (rule, file, object and message, numbered among equals) that does not depend on the line, so
// code scanning can follow a finding when lines move. The run's properties name the servers it
// ran on ("servers", as in the JSON document), a repository's sidecars ("sidecars", as in the
// JSON document; each result of one names it, "sidecar") and the phases that checked nothing,
// with why ("skipped": phase and why), since a log without results must not read as a pass of
// them.
func WriteSARIF(w io.Writer, r *Report) error {
	rules, idx := r.ruleIndex()
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: r.Tool, InformationURI: rule.IndexURL(r.HelpBase), Version: r.Version, SemanticVersion: semver(r.Version), Rules: make([]sarifRule, 0, len(rules))}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	if len(r.Servers) > 0 {
		run.Properties = map[string]any{"servers": servers(r)}
	}
	if sk := skippedPhases(r); len(sk) > 0 {
		if run.Properties == nil {
			run.Properties = map[string]any{}
		}
		run.Properties["skipped"] = sk
	}
	if len(r.Sidecars) > 0 {
		if run.Properties == nil {
			run.Properties = map[string]any{}
		}
		run.Properties["sidecars"] = jsonSidecars(r)
	}
	for _, ri := range rules {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(ri, r.HelpBase))
	}
	seen := map[string]int{}
	for i := range r.Phases {
		ph := &r.Phases[i]
		for _, f := range ph.Findings {
			file, line, col := location(ph, f)
			res := sarifResult{
				RuleID:     f.Rule,
				RuleIndex:  idx[f.Rule],
				Level:      sarifLevel(f.Severity),
				Message:    sarifText{Text: findingText(f)},
				Properties: map[string]any{"phase": ph.Name},
			}
			if ph.Sidecar != "" {
				res.Properties["sidecar"] = ph.Sidecar
			}
			uri, base := sarifURI(r.Root, file)
			if uri != "" {
				res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
					ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: base},
					Region:           sarifRegion{StartLine: line, StartColumn: col},
				}}}
			}
			key := fingerprint(f.Rule, uri, f.Object, f.Message)
			seen[key]++
			res.PartialFingerprints = map[string]string{fingerprintKey: fmt.Sprintf("%s:%d", key, seen[key])}
			run.Results = append(run.Results, res)
		}
	}
	return writeDocument(w, sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifRuleOf is a rule's reportingDescriptor: a readable name (the id in PascalCase: SARIF
// wants a name that is not the id), the summary, the first paragraph of what the rule catches,
// its page (docs/rules/ID.md, without its front matter) as help, its address under base as
// helpUri (none without a base: no address that may not exist), and a security rule's
// security-severity and tags.
func sarifRuleOf(ri rule.Rule, base string) sarifRule {
	help := ri.Explain
	if help == "" {
		help = ri.Summary
	}
	sr := sarifRule{
		ID:                   ri.ID,
		Name:                 pascalCase(ri.ID),
		ShortDescription:     sarifText{Text: ri.Summary},
		FullDescription:      sarifText{Text: catches(ri)},
		Help:                 sarifHelp{Text: help, Markdown: help},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(ri.Severity)},
	}
	if ri.Page != "" {
		sr.HelpURI = rule.PageURL(base, ri.ID)
	}
	if ri.SecuritySeverity != "" || len(ri.Tags) > 0 {
		sr.Properties = &sarifRuleProps{SecuritySeverity: ri.SecuritySeverity, Tags: ri.Tags}
	}
	return sr
}

// catches returns the first paragraph of a rule page's "What it catches" section, in one line,
// or the summary when the page has none.
func catches(ri rule.Rule) string {
	_, sec, ok := strings.Cut(ri.Explain, "## What it catches\n")
	if !ok {
		return ri.Summary
	}
	if p := firstParagraph(sec); p != "" && !strings.HasPrefix(p, "#") {
		return p
	}
	return ri.Summary
}

// pascalCase turns a kebab-case id into PascalCase: not-idempotent is NotIdempotent.
func pascalCase(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// sarifSkip is a phase that checked nothing, in the run's properties.
type sarifSkip struct {
	Phase string `json:"phase"`
	Why   string `json:"why"`
}

func skippedPhases(r *Report) []sarifSkip {
	var out []sarifSkip
	for i := range r.Phases {
		if ph := &r.Phases[i]; ph.Status == StatusSkip {
			out = append(out, sarifSkip{Phase: ph.Name, Why: strings.Join(ph.Notes, "; ")})
		}
	}
	return out
}

// location returns where a finding points: its position, else line 1 of its phase's file.
// Lines and columns are at least 1.
func location(ph *PhaseResult, f finding.Finding) (file string, line, col int) {
	file, line, col = f.Pos.File, f.Pos.Line, f.Pos.Col
	if file == "" {
		file, line, col = ph.File, 1, 1
	}
	return file, max(line, 1), max(col, 1)
}

// findingText is a finding's message for formats with one text field: the message, the object
// in parentheses and the detail below.
func findingText(f finding.Finding) string {
	s := f.Message + f.ObjectSuffix()
	if d := diffText(f); d != "" {
		s += "\n\n" + strings.TrimRight(d, "\n")
	}
	return s
}

// RelPath returns file relative to root (the current directory when root is empty), with
// forward slashes, and whether it is inside root. Files outside root are returned absolute.
func RelPath(root, file string) (string, bool) {
	if file == "" {
		return "", false
	}
	a := absPath(file)
	rel, err := filepath.Rel(absPath(root), a)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(a), false
	}
	return filepath.ToSlash(rel), true
}

// sarifURI returns the artifact URI of file, relative to the repository root (uriBaseId
// %SRCROOT%): never an absolute file:// URI, which names the machine that wrote the log. A file
// outside the root is reached from it with ".." segments.
func sarifURI(root, file string) (uri, base string) {
	rel, inside := RelPath(root, file)
	if rel == "" {
		return "", ""
	}
	if !inside {
		if r, err := filepath.Rel(absPath(root), absPath(file)); err == nil {
			rel = filepath.ToSlash(r)
		}
	}
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), "%SRCROOT%"
}

// absPath is p made absolute against the current directory ("" is the current directory).
func absPath(p string) string {
	wd, _ := os.Getwd()
	if !filepath.IsAbs(p) {
		p = filepath.Join(wd, p)
	}
	return filepath.Clean(p)
}

func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// firstParagraph returns the text up to the first blank line, joined into one line.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// semver returns v when it looks like a semantic version (digits.digits.digits...), else "".
func semver(v string) string {
	parts := strings.SplitN(strings.SplitN(v, "-", 2)[0], ".", 3)
	if len(parts) != 3 {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return v
}
