package rerun

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// phrasing words catalog differences for one audit. Messages do not name the object: the
// finding's Object does.
type phrasing interface {
	created() (rule, msg string)
	dropped() (rule, msg string)
	changed(attr string) (rule, msg string)
	// sides labels the before and after values of a change.
	sides() (before, after string)
}

// rerunPhrasing compares the catalog after run `run` with the catalog after the first run.
type rerunPhrasing struct{ run int }

func (p rerunPhrasing) created() (string, string) {
	return RuleRerunCatalogChanged, fmt.Sprintf("created by run %d (absent after the first run)", p.run)
}
func (p rerunPhrasing) dropped() (string, string) {
	return RuleRerunCatalogChanged, fmt.Sprintf("dropped by run %d (present after the first run)", p.run)
}
func (p rerunPhrasing) changed(attr string) (string, string) {
	return RuleRerunCatalogChanged, fmt.Sprintf("run %d changed its %s", p.run, attr)
}
func (p rerunPhrasing) sides() (string, string) {
	return "after run 1", fmt.Sprintf("after run %d", p.run)
}

// upgradePhrasing compares an upgraded catalog (after) with a fresh install (before).
type upgradePhrasing struct{}

func (upgradePhrasing) created() (string, string) {
	return RuleUpgradeStaleObject, "left behind by the upgrade: a fresh install does not have it"
}
func (upgradePhrasing) dropped() (string, string) {
	return RuleUpgradeMissingObject, "missing after the upgrade: a fresh install has it"
}
func (upgradePhrasing) changed(attr string) (string, string) {
	return RuleUpgradeCatalogDiffers, fmt.Sprintf("%s differs between the upgrade and a fresh install", attr)
}
func (upgradePhrasing) sides() (string, string) { return "fresh install", "upgrade" }

// catalogFindings turns a footprint into findings. Objects created or dropped together with
// their table, view or type (its columns, constraints, indexes, triggers, policies, owned
// sequences) are folded into it; so are the position changes of the other columns of a table
// that gained or lost a column. Roles are left out: they are cluster-wide.
func catalogFindings(fp *introspect.Footprint, p phrasing) []item {
	var out []item
	one := func(ref introspect.ObjectRef, attr string, sev finding.Severity, rule, msg, detail string) {
		out = append(out, item{
			key: rule + "\x00" + ref.String() + "\x00" + attr, attr: attr,
			f: finding.Finding{Phase: finding.PhaseRerun, Rule: rule, Severity: sev, Message: msg,
				Object: ref.String(), Detail: detail},
		})
	}
	objects := func(list []introspect.ObjectFacts, word func() (string, string), attr string) {
		set := map[introspect.ObjectRef]bool{}
		for _, o := range list {
			set[o.ObjectRef] = true
		}
		for _, o := range list {
			if o.Kind == introspect.KindRole || hasParentIn(o, set) {
				continue
			}
			rule, msg := word()
			one(o.ObjectRef, attr, finding.SevError, rule, msg, listing(o, list))
		}
	}
	objects(fp.Created, p.created, "created")
	objects(fp.Dropped, p.dropped, "dropped")
	// Tables that gained or lost a column: the positions of their other columns follow.
	shifted := map[string]bool{}
	for _, list := range [][]introspect.ObjectFacts{fp.Created, fp.Dropped} {
		for _, o := range list {
			if o.Kind == introspect.KindColumn {
				for _, p := range parents(o) {
					shifted[p.Object] = true
				}
			}
		}
	}
	bName, aName := p.sides()
	for _, c := range fp.Changed {
		if c.Kind == introspect.KindRole {
			continue
		}
		if c.Kind == introspect.KindColumn && c.Attr == "position" {
			if i := strings.LastIndex(c.Object, "."); i > 0 && shifted[c.Object[:i]] {
				continue
			}
		}
		rule, msg := p.changed(c.Attr)
		sev := finding.SevError
		before, after := c.Before, c.After
		if c.BeforeDisplay != "" || c.AfterDisplay != "" {
			before, after = c.BeforeDisplay, c.AfterDisplay
		}
		if c.Class == introspect.Cosmetic {
			sev = finding.SevWarning
			msg += " (whitespace or comments only)"
		}
		if strings.Contains(before, "\n") || strings.Contains(after, "\n") || len(before)+len(after) > 120 {
			// The two texts are the finding's data; every format renders them (one renderer,
			// internal/report), the message says which is which.
			one(c.Ref(), c.Attr, sev, rule, msg+fmt.Sprintf(" (- %s, + %s)", bName, aName), "")
			last := &out[len(out)-1].f
			last.From, last.To = before, after
			continue
		}
		msg += fmt.Sprintf(": %s %s, %s %s", bName, shown(before), aName, shown(after))
		one(c.Ref(), c.Attr, sev, rule, msg, "")
	}
	return out
}

func shown(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// parents lists the objects o belongs to, by its kind's parent (introspect.ParentOf): a
// column's relation, a constraint's, trigger's, policy's or rule's table, an index's or
// statistics object's table, an owned sequence's table.
func parents(o introspect.ObjectFacts) []introspect.ObjectRef {
	fact := func(attr string) string {
		for _, f := range o.Facts {
			if f.Attr == attr {
				return f.Value
			}
		}
		return ""
	}
	name := introspect.ParentOf(o.Kind, o.Object, fact)
	if name == "" {
		return nil
	}
	return []introspect.ObjectRef{{Kind: introspect.KindTable, Object: name}, {Kind: introspect.KindView, Object: name}, {Kind: introspect.KindType, Object: name}}
}

func hasParentIn(o introspect.ObjectFacts, set map[introspect.ObjectRef]bool) bool {
	for _, p := range parents(o) {
		if set[p] {
			return true
		}
	}
	return false
}

// listing shows an object's single-line facts, and the objects folded into it by name.
func listing(o introspect.ObjectFacts, all []introspect.ObjectFacts) string {
	var b strings.Builder
	for _, f := range o.Facts {
		if v := f.Shown(); v != "" && !strings.Contains(v, "\n") {
			fmt.Fprintf(&b, "%s: %s\n", f.Attr, v)
		}
	}
	for _, c := range all {
		for _, p := range parents(c) {
			if p == o.ObjectRef {
				fmt.Fprintf(&b, "with %s\n", c.ObjectRef)
				break
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// rerunRowFindings compares every table of the first digest with the digest after run `run`.
func rerunRowFindings(run int, base, after *introspect.Digest) []item {
	var out []item
	for _, b := range base.Tables {
		a, ok := after.Table(b.Table)
		obj := "table " + b.Table
		if !ok {
			if b.Rows > 0 {
				out = append(out, rowItem(RuleRerunRowsLost, obj,
					fmt.Sprintf("run %d dropped the table: lost all %s", run, rowsWord(b.Rows))))
			}
			continue
		}
		d := introspect.CompareRows(b, a)
		if environmentTable(b.Table) {
			d = contentDelta(b, a)
		}
		if d.Zero() {
			continue
		}
		rule := RuleRerunRowsAdded
		switch {
		case d.Lost > 0:
			rule = RuleRerunRowsLost
		case d.Duplicated > 0:
			rule = RuleRerunRowsDuplicated
		case d.Changed > 0:
			rule = RuleRerunRowsChanged
		}
		it := rowItem(rule, obj, fmt.Sprintf("run %d %s", run, d))
		if cols, detail := rowChanges(b, a); detail != "" {
			if len(cols) > 0 {
				it.f.Message += ": " + columnsWord(cols) + " " + strings.Join(cols, ", ")
			}
			it.f.Detail = detail
		}
		out = append(out, it)
	}
	return out
}

// upgradeRowFindings reports every table with fewer rows after the upgrade than before it.
func upgradeRowFindings(before, after *introspect.Digest) []item {
	var out []item
	for _, b := range before.Tables {
		if b.Rows == 0 {
			continue
		}
		obj := "table " + b.Table
		a, ok := after.Table(b.Table)
		switch {
		case !ok:
			out = append(out, rowItem(RuleUpgradeRowsLost, obj,
				fmt.Sprintf("the upgrade dropped the table: lost all %s", rowsWord(b.Rows))))
		case a.Rows < b.Rows:
			out = append(out, rowItem(RuleUpgradeRowsLost, obj,
				fmt.Sprintf("the upgrade lost %s (%s before, %d after)", rowsWord(b.Rows-a.Rows), rowsWord(b.Rows), a.Rows)))
		}
	}
	return out
}

func rowItem(rule, obj, msg string) item {
	return item{key: rule + "\x00" + obj, f: finding.Finding{Phase: finding.PhaseRerun, Rule: rule,
		Severity: finding.SevError, Message: msg, Object: obj}}
}

func rowsWord(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
