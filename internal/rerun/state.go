package rerun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// What the audits compare beyond the catalog and the tables' rows: where each sequence stands
// (a sequence set back makes the rows inserted after it reuse values) and the large objects.
// The environment's tables (storage.buckets, cron.job, net.http_request_queue, ...) are in the
// digests too, and compared as any table's rows.

// rerunStateFindings compares the state the first digest holds beyond the tables with the
// digest after run `run`: a sequence it set back, the large objects it created, removed or
// changed.
func rerunStateFindings(run int, base, after *introspect.Digest) []item {
	var out []item
	for _, b := range base.Sequences {
		if a, ok := after.Sequence(b.Sequence); ok && a.MovedBack(b) {
			out = append(out, stateItem(RuleRerunSequenceReset, "sequence "+b.Sequence,
				fmt.Sprintf("run %d set it back: nextval returns %d after the run, %d after the first run, so the rows inserted from then on get values it had handed out before (a key on them rejects the insert)",
					run, a.Next(), b.Next())))
		}
	}
	if what := largeObjectsDelta(base.LargeObjects, after.LargeObjects); what != "" {
		out = append(out, stateItem(RuleRerunLargeObjectsChanged, "",
			fmt.Sprintf("run %d %s: each run of the file leaves large objects the first run did not", run, what)))
	}
	return out
}

// upgradeStateFindings compares the state before the upgrade with after it: a sequence it set
// back, the large objects it removed or changed.
func upgradeStateFindings(before, after *introspect.Digest) []item {
	var out []item
	for _, b := range before.Sequences {
		if a, ok := after.Sequence(b.Sequence); ok && a.MovedBack(b) {
			out = append(out, stateItem(RuleUpgradeSequenceReset, "sequence "+b.Sequence,
				fmt.Sprintf("the upgrade set it back: nextval returns %d after it, %d before it, so the rows inserted from then on get values the existing rows may hold (a key on them rejects the insert)",
					a.Next(), b.Next())))
		}
	}
	kept := map[uint32]introspect.LargeObject{}
	for _, lo := range after.LargeObjects {
		kept[lo.OID] = lo
	}
	var lost, changed []string
	for _, lo := range before.LargeObjects {
		switch a, ok := kept[lo.OID]; {
		case !ok:
			lost = append(lost, describeLO(lo))
		case a.Hash != lo.Hash:
			changed = append(changed, describeLO(lo))
		}
	}
	var parts []string
	if len(lost) > 0 {
		parts = append(parts, "removed "+nouns.Count(len(lost), "large object")+" ("+strings.Join(lost, ", ")+")")
	}
	if len(changed) > 0 {
		parts = append(parts, "changed the content of "+nouns.Count(len(changed), "large object")+" ("+strings.Join(changed, ", ")+")")
	}
	if len(parts) > 0 {
		out = append(out, stateItem(RuleUpgradeLargeObjectsLost, "", "the upgrade "+strings.Join(parts, " and ")+" that existed before it"))
	}
	return out
}

// largeObjectsDelta says which large objects of after are not those of before ("created 1
// large object (13 bytes)"), "" when they are the same.
func largeObjectsDelta(before, after []introspect.LargeObject) string {
	was := map[uint32]introspect.LargeObject{}
	for _, lo := range before {
		was[lo.OID] = lo
	}
	var created, changed []string
	for _, lo := range after {
		switch b, ok := was[lo.OID]; {
		case !ok:
			created = append(created, describeLO(lo))
		case b.Hash != lo.Hash:
			changed = append(changed, describeLO(lo))
		}
		delete(was, lo.OID)
	}
	var removed []string
	for _, lo := range before {
		if _, gone := was[lo.OID]; gone {
			removed = append(removed, describeLO(lo))
		}
	}
	var parts []string
	for _, p := range []struct {
		verb string
		list []string
	}{{"created", created}, {"changed the content of", changed}, {"removed", removed}} {
		if len(p.list) > 0 {
			parts = append(parts, p.verb+" "+nouns.Count(len(p.list), "large object")+" ("+strings.Join(shortList(p.list), ", ")+")")
		}
	}
	return strings.Join(parts, ", ")
}

// describeLO describes a large object by its size ("13 bytes"): its OID is the server's choice.
func describeLO(lo introspect.LargeObject) string {
	return nouns.Count(int(lo.Bytes), "byte")
}

// shortList keeps the first three of a list, and says how many more there are.
func shortList(l []string) []string {
	if len(l) <= 3 {
		return l
	}
	return append(l[:3:3], fmt.Sprintf("and %d more", len(l)-3))
}

func stateItem(rule, obj, msg string) item {
	return item{key: rule + "\x00" + obj, f: finding.Finding{Phase: finding.PhaseRerun, Rule: rule,
		Severity: finding.SevError, Message: msg, Object: obj}}
}

// userTables counts the tables of d outside the environment's schemas, and their rows: what the
// summaries count (the environment's tables are compared too, and named when they change).
func userTables(d *introspect.Digest) (tables int, rows int64) {
	for _, t := range d.Tables {
		if schema, _, _ := strings.Cut(t.Table, "."); slices.Contains(introspect.EnvironmentSchemas, schema) {
			continue
		}
		tables++
		rows += t.Rows
	}
	return tables, rows
}

// environmentTable reports whether table is one of the environment's (storage.buckets,
// cron.job, ...).
func environmentTable(table string) bool {
	schema, _, _ := strings.Cut(table, ".")
	return slices.Contains(introspect.EnvironmentSchemas, schema)
}

// contentDelta is [introspect.CompareRows] for a table of the environment: a row whose content
// (its columns without a default) is unchanged counts as unchanged, whatever the ids and
// timestamps the environment gave it (a cron job unscheduled and scheduled again on every run
// gets a new jobid, and is the same job).
func contentDelta(before, after introspect.TableDigest) introspect.RowDelta {
	d := introspect.RowDelta{Before: before.Rows, After: after.Rows}
	c := introspect.ClassifyRows(before, after)
	for _, p := range c.Changed {
		if p[0].Content != p[1].Content {
			d.Changed++
		}
	}
	d.Lost, d.Duplicated, d.Added = int64(len(c.Lost)), int64(len(c.Duplicated)), int64(len(c.Added))
	return d
}
