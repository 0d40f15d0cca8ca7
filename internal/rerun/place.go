package rerun

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"

	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// statements returns the map of the audited file's objects to its statements: the gate's (one
// per variant, shared with the other phases), else the file parsed here; nil when it does not
// parse (its install fails, which is a finding of its own).
func statements(opts Options) *locate.Index {
	if opts.Statements != nil {
		return opts.Statements
	}
	f, err := sqlscript.Parse(opts.File.Name, opts.File.Src, opts.Dim)
	if err != nil {
		return nil
	}
	return locate.New(f)
}

// previous returns the statements of the previous version (nil when it does not parse), parsed
// once: where an object the upgrade left behind was created.
func (a *auditor) previous() *locate.Index {
	a.prevOnce.Do(func() {
		p := a.opts.Previous
		if f, err := sqlscript.Parse(p.Name, p.Src, a.opts.Dim); err == nil {
			a.prev = locate.New(f)
		}
	})
	return a.prev
}

// place points the finding of it, when it has no position (a catalog or row finding), at the
// statement of the file that created or changed its object (that set its attribute, when it is
// about one); a row finding at the statement that most likely wrote the rows, which its message
// names. A finding no statement of the file explains says so.
func (a *auditor) place(it *item) {
	f := &it.f
	if a.ix == nil || f.Pos.Line > 0 {
		return
	}
	if a.placeState(it) || f.Object == "" {
		return
	}
	kind, object, ok := locate.SplitRef(f.Object)
	if !ok {
		return
	}
	if rowsRule[f.Rule] && kind == "table" {
		if pos, what, ok := a.ix.RowWriter(object); ok {
			f.Pos = pos
			f.Message += fmt.Sprintf("; most likely the %s at %s", what, pos)
			return
		}
	}
	if pos, ok := a.ix.Statement(kind, object, it.attr); ok {
		f.Pos = pos
		return
	}
	if f.Rule == RuleUpgradeStaleObject && a.opts.Previous != nil {
		if pos, ok := a.previous().Statement(kind, object, ""); ok {
			f.Pos = pos
			f.Message += fmt.Sprintf("; the previous version creates it at %s and no statement of %s drops it", pos, a.opts.File.Name)
			return
		}
	}
	f.Message += fmt.Sprintf("; no statement of %s names it", a.opts.File.Name)
}

// rowsRule are the rules about a table's rows.
var rowsRule = map[string]bool{
	RuleRerunRowsChanged: true, RuleRerunRowsAdded: true, RuleRerunRowsLost: true, RuleRerunRowsDuplicated: true, RuleUpgradeRowsLost: true,
}

// placeState points a finding about the state beyond the tables (a sequence set back, large
// objects) at the statement that most likely did it, and reports whether the finding is one.
func (a *auditor) placeState(it *item) bool {
	f := &it.f
	var pos finding.Position
	var what string
	var ok bool
	switch f.Rule {
	case RuleRerunSequenceReset, RuleUpgradeSequenceReset:
		pos, what, ok = a.ix.SequenceSetter(strings.TrimPrefix(f.Object, "sequence "))
	case RuleRerunLargeObjectsChanged, RuleUpgradeLargeObjectsLost:
		pos, what, ok = a.ix.Caller(largeObjectWriters...)
	default:
		return false
	}
	if ok {
		f.Pos = pos
		f.Message += fmt.Sprintf("; most likely the %s at %s", what, pos)
	} else {
		f.Message += fmt.Sprintf("; no statement of %s names it", a.opts.File.Name)
	}
	return true
}

// largeObjectWriters are the server's functions that create, write or remove large objects.
var largeObjectWriters = []string{"lo_create", "lo_creat", "lo_from_bytea", "lo_import", "lo_put", "lowrite", "lo_truncate", "lo_truncate64", "lo_unlink"}
