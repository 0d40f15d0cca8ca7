package audit

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// What installing the file did to the environment's data, observed: the rows of the Supabase
// environment's tables (storage, auth, cron, vault, pg_net's queue: [introspect.EnvironmentSchemas])
// read by the run's reader role just before and just after the install. A change there is made
// at deploy time, by the migration itself, outside every table the file created:
//
//   - bucket-made-public: a bucket of storage.buckets inserted or updated with public = true,
//     whose files anyone can then read by URL, whatever the policies on storage.objects;
//   - outbound-request-queued: a request in pg_net's queue (net.http_request_queue), which pg_net
//     sends once the migration commits;
//   - environment-data-changed: any other row of an environment table added, changed or removed
//     (a job in cron.job, a secret in vault.secrets, a user in auth.users).
//
// The verdict is the rows; the statement a finding points at is the one that most likely wrote
// them ([locate.Index.RowWriter]).

// EnvironmentRows is how many rows of each environment table the digests around the install
// keep the values of (a larger table's changes are counted, not shown).
const EnvironmentRows = 100

// EnvironmentOptions returns the digest options that read the environment's tables alone
// (base: the snapshot options of the database, for its role names), with their values.
func EnvironmentOptions(base introspect.Options) introspect.Options {
	base.IncludeEnvironment, base.IncludeExtensionObjects, base.Schemas = true, true, introspect.EnvironmentSchemas
	base.RowValues = EnvironmentRows
	return base
}

// Environment returns the findings of what the install of file changed in the environment's
// tables, from the digests of them before and after it (see [EnvironmentOptions]); ix places
// them at the file's statements, and a reviewed suppression in f (ledgercheck:ignore RULE on the
// line before) accepts one.
func Environment(before, after *introspect.Digest, f *pgsql.File, ix *locate.Index, file string) []finding.Finding {
	if before == nil || after == nil {
		return nil
	}
	out := environment(before, after, ix, file)
	return slices.DeleteFunc(out, func(x finding.Finding) bool { return suppressed(f, x.Rule, x.Pos) })
}

// environment is [Environment] before suppressions.
func environment(before, after *introspect.Digest, ix *locate.Index, file string) []finding.Finding {
	var out []finding.Finding
	for _, a := range after.Tables {
		b, _ := before.Table(a.Table)
		c := introspect.ClassifyRows(b, a)
		if len(c.Changed)+len(c.Added)+len(c.Duplicated)+len(c.Lost) == 0 {
			continue
		}
		switch a.Table {
		case "net.http_request_queue":
			out = append(out, queued(c, ix, file)...)
			continue
		case "storage.buckets":
			if fs := madePublic(c, ix, file); len(fs) > 0 {
				out = append(out, fs...)
				continue
			}
		}
		pos, where := placeRows(ix, a.Table, file)
		out = append(out, finding.Finding{Phase: finding.PhaseAudit, Rule: RuleEnvironmentDataChanged, Severity: finding.SevWarning,
			Pos: pos, Object: "table " + a.Table,
			Message: fmt.Sprintf("installing the file changes rows of the environment's table %s at deploy time: %s%s", a.Table, introspect.CompareRows(b, a), where),
			Detail:  rowsDetail(c, a.Content)})
	}
	for _, b := range before.Tables {
		if _, ok := after.Table(b.Table); !ok && b.Rows > 0 {
			pos, where := placeRows(ix, b.Table, file)
			out = append(out, finding.Finding{Phase: finding.PhaseAudit, Rule: RuleEnvironmentDataChanged, Severity: finding.SevWarning,
				Pos: pos, Object: "table " + b.Table,
				Message: fmt.Sprintf("installing the file drops the environment's table %s and its %d rows%s", b.Table, b.Rows, where)})
		}
	}
	return out
}

// madePublic reports each bucket the install inserted or updated with public = true.
func madePublic(c introspect.RowChanges, ix *locate.Index, file string) []finding.Finding {
	var out []finding.Finding
	report := func(before string, row introspect.RowHash) {
		v := values(row)
		if v["public"] != "t" || values(introspect.RowHash{Values: before})["public"] == "t" {
			return
		}
		name := cmp.Or(v["name"], v["id"])
		pos, where := placeColumn(ix, "storage.buckets", "public", file)
		out = append(out, finding.Finding{Phase: finding.PhaseAudit, Rule: RuleBucketMadePublic, Severity: finding.SevError,
			Pos: pos, Object: "bucket " + name,
			Message: fmt.Sprintf("makes bucket %s public: anyone can read every file in it by its URL, whatever the policies on storage.objects say%s", name, where)})
	}
	for _, r := range append(slices.Clone(c.Added), c.Duplicated...) {
		report("", r)
	}
	for _, p := range c.Changed {
		report(p[0].Values, p[1])
	}
	return out
}

// queued reports each request the install put in pg_net's queue, with its method and
// destination, at the call that most likely queued it.
func queued(c introspect.RowChanges, ix *locate.Index, file string) []finding.Finding {
	rows := append(slices.Clone(c.Added), c.Duplicated...)
	for _, p := range c.Changed {
		rows = append(rows, p[1])
	}
	var out []finding.Finding
	for _, r := range rows {
		v := values(r)
		method, url := strings.ToUpper(cmp.Or(v["method"], "a")), cmp.Or(v["url"], "a URL ledgercheck did not keep")
		pos, where := requestCall(ix, strings.ToLower(method), url, file)
		body := ""
		if b := v["body"]; b != "" {
			body = fmt.Sprintf(" with a body of %d bytes", (len(b)-2)/2) // bytea's \x and two hex digits a byte
		}
		out = append(out, finding.Finding{Phase: finding.PhaseAudit, Rule: RuleOutboundRequestQueued, Severity: finding.SevError,
			Pos: pos, Object: "table net.http_request_queue",
			Message: fmt.Sprintf("queues a %s request to %s%s when the file is installed: pg_net sends it from the database once the migration commits%s", method, url, body, where)})
	}
	return out
}

// requestCall is the position of the call of net.http_<method> whose literal URL the request's
// starts with, else of any call that queues a request (see [placeRows]).
func requestCall(ix *locate.Index, method, url, file string) (finding.Position, string) {
	if pos, what, ok := ix.CallWith("net.http_"+method, func(lit string) bool {
		return lit != "" && (url == lit || strings.HasPrefix(url, lit+"?") || strings.HasPrefix(url, lit+"&"))
	}); ok {
		return pos, fmt.Sprintf("; the %s at %s", what, pos)
	}
	return placeRows(ix, "net.http_request_queue", file)
}

// placeRows is the position of the statement that most likely wrote table's rows, and the
// clause that says so; the file's first line when no statement of it names the table.
func placeRows(ix *locate.Index, table, file string) (finding.Position, string) {
	if pos, what, ok := ix.RowWriter(table); ok {
		return pos, fmt.Sprintf("; most likely the %s at %s", what, pos)
	}
	return finding.Position{File: file, Line: 1, Col: 1}, fmt.Sprintf("; no statement of %s names %s (SQL built at run time?)", file, table)
}

// placeColumn is [placeRows] for the statement that most likely set column of table.
func placeColumn(ix *locate.Index, table, column, file string) (finding.Position, string) {
	if pos, what, ok := ix.ColumnWriter(table, column); ok {
		return pos, fmt.Sprintf("; most likely the %s at %s", what, pos)
	}
	return placeRows(ix, table, file)
}

// values decodes a row's values (its columns' texts by name); empty when the digest did not
// keep them.
func values(r introspect.RowHash) map[string]string {
	out := map[string]string{}
	if r.Values == "" {
		return out
	}
	var raw map[string]*string
	if json.Unmarshal([]byte(r.Values), &raw) != nil {
		return out
	}
	for k, v := range raw {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

// rowsDetail lists up to three rows of each kind of change, as the rerun audit does, each with
// its content columns only (those without a default: not the ids, timestamps, database and user
// names the environment fills in).
func rowsDetail(c introspect.RowChanges, content []string) string {
	var lines []string
	add := func(word string, rows []introspect.RowHash) {
		for i, r := range rows {
			if i == 3 {
				lines = append(lines, fmt.Sprintf("%s: and %d more", word, len(rows)-3))
				break
			}
			if r.Values != "" {
				lines = append(lines, word+": "+shortRow(r.Values, content))
			}
		}
	}
	add("added", append(slices.Clone(c.Added), c.Duplicated...))
	after := make([]introspect.RowHash, len(c.Changed))
	for i, p := range c.Changed {
		after[i] = p[1]
	}
	add("changed", after)
	add("removed", c.Lost)
	return strings.Join(lines, "\n")
}

// shortRow renders a row's values (JSON) as "col value, col value", those of the columns of
// content only, each value cut at 40 characters and the whole at 200.
func shortRow(js string, content []string) string {
	var cols []struct{ k, v string }
	dec := json.NewDecoder(strings.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return js
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v *string
		if dec.Decode(&v) != nil {
			break
		}
		if !slices.Contains(content, fmt.Sprint(k)) {
			continue
		}
		text := "NULL"
		if v != nil {
			text = *v
		}
		if r := []rune(text); len(r) > 40 {
			text = string(r[:40]) + "…"
		}
		cols = append(cols, struct{ k, v string }{fmt.Sprint(k), text})
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.k + " " + c.v
	}
	s := strings.Join(parts, ", ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
