package lint

import (
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// ChangesSQLReading is the id of the rule below (docs/rules/changes-sql-reading.md).
const ChangesSQLReading = "changes-sql-reading"

// readingSettings are the settings under which the server reads a statement's text: lint reads
// every file as the server does with their values here, so a value that reads otherwise makes
// what lint read differ from what the server runs. Each maps to whether a value keeps the
// reading, and why another does not.
var readingSettings = map[string]struct {
	keeps func(v string) bool
	why   string
}{
	"standard_conforming_strings": {isOn, "a backslash then escapes a quote in a string literal, so the server ends strings where lint does not and runs as statements what lint read as a string"},
	"backslash_quote":             {func(v string) bool { v = strings.ToLower(v); return v == "safe_encoding" || isOn(v) }, "the server then refuses \\' in string literals that lint reads"},
	"client_encoding":             {isUTF8, "the server then reads the file's bytes in another encoding (SJIS, BIG5, GBK and GB18030 take a backslash byte into a character), so it ends strings where lint does not and runs as statements what lint read as a string"},
	"transform_null_equals":       {func(v string) bool { return isOff(v) }, "the server then reads expr = NULL as expr IS NULL, which lint reads as a comparison that is never true"},
}

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: ChangesSQLReading, Severity: finding.SevError,
	}),
	Check: func(p *Pass) {
		for _, op := range p.Ops() {
			for _, s := range op.Settings {
				if what, why := readingChange(s); what != "" {
					p.Report(s.Pos, "", "%s%s: %s", what, where(op), why)
				}
			}
		}
	},
})

// readingChange says what of s changes how the server reads statements and why, or "" when
// nothing does.
func readingChange(s pgsql.SettingChange) (what, why string) {
	if s.Name == "" {
		return s.Form + " sets a setting whose name is computed at run time", "it could change how the server reads the statements after it (standard_conforming_strings, client_encoding, ...)"
	}
	rs, ok := readingSettings[s.Name]
	if !ok || (!s.Dynamic && rs.keeps(s.Value)) {
		return "", ""
	}
	value := s.Value
	if s.Dynamic {
		value = "a value computed at run time"
	}
	return s.Form + " sets " + s.Name + " to " + value, rs.why
}

// isOn and isOff read a boolean setting as PostgreSQL's parse_bool does (a unique prefix of
// true, false, yes, no; on, off; 1, 0).
func isOn(v string) bool  { return boolValue(v) == 1 }
func isOff(v string) bool { return boolValue(v) == 0 }

func boolValue(v string) int {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case v == "":
		return -1
	case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "on", v == "1":
		return 1
	case strings.HasPrefix("false", v), strings.HasPrefix("no", v), v == "off" || v == "of", v == "0":
		return 0
	}
	return -1
}

// isUTF8 reports whether v names UTF-8 as PostgreSQL reads an encoding's name (case and
// punctuation ignored; UNICODE is an alias).
func isUTF8(v string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(v) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String() == "utf8" || b.String() == "unicode"
}
