package lint

import (
	"errors"
	"sort"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// Source parses src (the content of the file called name) and lints it. A syntax error is a
// parse-error finding: the migration would not apply, so nothing else is checked. A statement
// nested too deep to parse ([pgsql.MaxNesting]) is a too-complex finding, and nothing else is
// checked either.
func Source(name string, src []byte, cfg Config, opts Options) []finding.Finding {
	f, err := pgsql.Parse(name, src)
	return Parsed(name, f, err, cfg, opts)
}

// Parsed lints a file already parsed: f and err are what [pgsql.Parse] returned for the file
// called name (the gate parses each variant once and shares the parse). A parse error is
// reported as [Source] reports it.
func Parsed(name string, f *pgsql.File, err error, cfg Config, opts Options) []finding.Finding {
	if err != nil {
		var se *pgsql.SyntaxError
		if !errors.As(err, &se) {
			se = &pgsql.SyntaxError{Pos: finding.Position{File: name, Line: 1, Col: 1}, Msg: err.Error()}
		}
		rule, msg := ruleParseError, se.Msg+rejection(opts)
		if se.TooComplex {
			rule, msg = ruleTooComplex, se.Msg
		}
		sev, _ := cfg.severity(rule)
		return []finding.Finding{{Phase: finding.PhaseLint, Rule: rule.ID, Severity: sev, Pos: se.Pos, Message: msg}}
	}
	return Run(f, cfg, opts)
}

// Run applies every rule to f and returns the findings, suppressions applied, sorted by position.
func Run(f *pgsql.File, cfg Config, opts Options) []finding.Finding {
	var all []finding.Finding
	p := &Pass{File: f, Config: cfg, Options: opts, Own: NewOwnership(f, cfg), findings: &all}
	for _, r := range cfg.active() {
		p.rule = r
		r.Check(p)
	}
	all = applySuppressions(f, cfg, all)
	all = baseSchema(f, p.Own, cfg, all)
	sortFindings(all)
	return all
}

func sortFindings(fs []finding.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Pos, fs[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return fs[i].Rule < fs[j].Rule
	})
}
