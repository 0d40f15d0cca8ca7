package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// htmlPage is the self-contained page: inline CSS, no script, no external asset. The markup is
// also well-formed XML (every element closed), which the tests rely on to parse it.
var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Tool}} {{.Version}}: {{.Status}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:78em;padding:0 1em;color:#1f2328;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.8em 0 .5em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
table{border-collapse:collapse}
table.summary td,table.summary th{border:1px solid #d0d7de;padding:.25em .8em;text-align:left}
table.summary td.num{text-align:right}
.badge{display:inline-block;border-radius:1em;padding:0 .7em;font-weight:600;color:#fff}
.st-pass{background:#1a7f37}.st-warn{background:#9a6700}.st-fail{background:#cf222e}.st-skip{background:#6e7781}
.finding{border-left:4px solid #6e7781;padding:.35em .8em;margin:.6em 0;background:#f6f8fa}
.finding.sev-error{border-color:#cf222e}.finding.sev-warning{border-color:#9a6700}.finding.sev-info{border-color:#0969da}
.sev{font-weight:600;text-transform:uppercase;font-size:.85em}
.sev-error .sev{color:#cf222e}.sev-warning .sev{color:#9a6700}.sev-info .sev{color:#0969da}
code,pre,.sbs{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.rule{color:#57606a}.obj{color:#57606a}
pre{background:#fff;border:1px solid #d0d7de;padding:.5em;overflow:auto;white-space:pre-wrap}
ul.notes{color:#57606a;margin:.3em 0}
table.sbs{width:100%;table-layout:fixed;margin:.5em 0;border:1px solid #d0d7de;background:#fff}
table.sbs td{vertical-align:top;white-space:pre-wrap;word-break:break-all;padding:0 .4em}
table.sbs col.no{width:3.5em}
table.sbs td.no{text-align:right;color:#8c959f;user-select:none}
table.sbs th{font-weight:600;text-align:left;padding:.2em .4em;background:#f6f8fa;border-bottom:1px solid #d0d7de}
tr.hunk td{background:#ddf4ff;color:#57606a}
td.del{background:#ffebe9}td.add{background:#dafbe1}
td.del del{background:#ffb8b0;text-decoration:none}td.add ins{background:#8ee2a3;text-decoration:none}
div.scroll{overflow-x:auto;max-width:100%;margin:.5em 0}
table.sbs.tabular{table-layout:auto;width:auto;margin:0}
table.sbs.tabular td{white-space:pre;word-break:normal}
footer{margin-top:3em;color:#8c959f;font-size:.85em}
pre.excerpt{background:#fff;margin:.4em 0}
details.accept{margin:.3em 0}details.accept summary,details.page summary{cursor:pointer;color:#57606a}
details.page pre{white-space:pre-wrap}
h3{font-size:1em;margin:1.2em 0 .3em}
table.access{margin:.4em 0;font-size:.92em}
table.access td,table.access th{border:1px solid #d0d7de;padding:.2em .6em;text-align:left;vertical-align:top}
table.access th{background:#f6f8fa}
table.access td.open{background:#ffebe9;color:#82071e}
table.access td.own{background:#dafbe1;color:#116329}
table.access td.unowned{background:#fff8c5;color:#4d2d00}
table.access td.none{color:#8c959f;text-align:center}
table.access tr.first td{border-top:2px solid #8c959f}
p.legend{color:#57606a;margin:.2em 0}
</style>
</head>
<body>
<h1>{{.Tool}} {{.Version}} <span class="badge st-{{.Status}}">{{.Status}}</span></h1>
<p>{{.Counts}} in {{.Duration}}.</p>
{{with .Server}}<p>{{.}}</p>
{{end}}
{{- if .Sidecars}}<table class="summary">
<thead><tr><th>sidecar</th><th>status</th><th>findings</th><th>time</th><th>needs</th></tr></thead>
<tbody>
{{- range .Sidecars}}
<tr><td><a href="#{{.ID}}">{{.Name}}</a></td><td><span class="badge st-{{.Status}}">{{.Status}}</span></td><td class="num">{{.Findings}}</td><td class="num">{{.Duration}}</td><td>{{.Needs}}</td></tr>
{{- end}}
</tbody>
</table>
<p></p>
{{end}}<table class="summary">
<thead><tr><th>phase</th><th>status</th><th>findings</th><th>time</th></tr></thead>
<tbody>
{{- range .Phases}}
<tr><td><a href="#{{.ID}}">{{.Name}}</a></td><td><span class="badge st-{{.Status}}">{{.Status}}</span></td><td class="num">{{.FindingsCell}}</td><td class="num">{{.Duration}}</td></tr>
{{- end}}
</tbody>
</table>
{{- range .Phases}}
{{- with .SidecarHeading}}
<h1 class="sidecar" id="{{.ID}}">sidecar {{.Name}}</h1>
{{- end}}
<section id="{{.ID}}">
<h2>{{.Name}} <span class="badge st-{{.Status}}">{{.Status}}</span></h2>
{{- if .File}}
<p>File: <code>{{.File}}</code></p>
{{- end}}
{{- if .Notes}}
<ul class="notes">
{{- range .Notes}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- if .Locks}}
<div class="scroll">
<table class="summary locks">
<thead><tr><th>line</th><th>run</th><th>statement</th><th>relation</th><th>lock mode</th><th>what it blocks</th><th>rewrite</th><th>time</th><th>held</th><th>rows</th></tr></thead>
<tbody>
{{- range .Locks}}
<tr><td class="num">{{.Line}}</td><td>{{.Run}}</td><td><code>{{.Statement}}</code></td><td><code>{{.Relation}}</code></td><td>{{.Mode}}</td><td>{{.Blocks}}</td><td>{{.Rewrite}}</td><td class="num">{{.Time}}</td><td class="num">{{.Held}}</td><td>{{.Rows}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- if not .Findings}}
<p>{{.NoFindings}}</p>
{{- end}}
{{- range .Findings}}
<div class="finding sev-{{.Severity}}">
<div><span class="sev">{{.Severity}}</span> {{if .Where}}<code>{{.Where}}</code> {{end}}{{.Message}}{{if .Object}} <span class="obj">({{.Object}})</span>{{end}} <span class="rule">[{{if .RuleURL}}<a href="{{.RuleURL}}">{{.Rule}}</a>{{else}}{{.Rule}}{{end}}]</span></div>
{{- if .Excerpt}}
<pre class="excerpt">{{.Excerpt}}</pre>
{{- end}}
{{- if .AcceptText}}
<details class="accept"><summary>{{.AcceptHow}}</summary>
<pre>{{.AcceptText}}</pre>
</details>
{{- end}}
{{- if .Lines}}
<div class="scroll">
<table class="sbs tabular">
<thead><tr><th></th><th>{{.LeftTitle}} (−) and {{.RightTitle}} (+), each changed row above the row that replaced it</th></tr></thead>
<tbody>
{{- range .Lines}}
<tr><td class="no">{{.Mark}}</td><td class="{{.Class}}">{{if .HTML}}{{.HTML}}{{else}}{{.Text}}{{end}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- else if .Rows}}
<table class="sbs">
<colgroup><col class="no"/><col/><col class="no"/><col/></colgroup>
<thead><tr><th colspan="2">{{.LeftTitle}}</th><th colspan="2">{{.RightTitle}}</th></tr></thead>
<tbody>
{{- range .Rows}}
{{- if eq .Kind "hunk"}}
<tr class="hunk"><td colspan="4">{{.Left}}</td></tr>
{{- else}}
<tr><td class="no">{{if .LeftNo}}{{.LeftNo}}{{end}}</td><td class="{{.LeftClass}}">{{if .LeftHTML}}{{.LeftHTML}}{{else}}{{.Left}}{{end}}</td><td class="no">{{if .RightNo}}{{.RightNo}}{{end}}</td><td class="{{.RightClass}}">{{if .RightHTML}}{{.RightHTML}}{{else}}{{.Right}}{{end}}</td></tr>
{{- end}}
{{- end}}
</tbody>
</table>
{{- else if .Detail}}
<pre>{{.Detail}}</pre>
{{- end}}
</div>
{{- end}}
{{- with .Access}}
<h3>Access, as observed</h3>
<p class="legend">What anon and the signed-in users A and B could do with what the file made reachable, under each kind of project: rows read or changed of the rows present. Red: beyond the persona's own rows (anon's anything, another user's rows, a side effect); green: its own rows only; yellow: rows whose owner cannot be seen; a dash: refused, or nothing there. In another table a request changed: +inserted, ~updated, -deleted rows.</p>
<div class="scroll">
<table class="access">
<thead><tr><th>object</th><th>persona</th><th>action</th>{{range .Models}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Object}} class="first"{{end}}><td>{{if .Object}}<code>{{.Object}}</code>{{end}}</td><td>{{.Persona}}</td><td>{{.Action}}</td>{{range .Cells}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
</section>
{{- end}}
{{- if .Rules}}
<section id="rules">
<h2>Rules</h2>
<p>The page of each rule reported above (<code>ledgercheck explain RULE</code> prints it).</p>
{{- range .Rules}}
<details class="page" id="rule-{{.ID}}"><summary><code>{{.ID}}</code>: {{.Summary}}</summary>
<pre>{{.Page}}</pre>
</details>
{{- end}}
</section>
{{- end}}
<footer>Generated by {{.Tool}} {{.Version}}. Lines and columns are 1-based and count Unicode code points.</footer>
</body>
</html>
`))

type (
	htmlView struct {
		Tool, Version, Counts, Duration string
		Server                          string // Report.ServerLine
		Status                          Status
		Phases                          []htmlPhase
		// Rules are the pages of the rules reported, embedded when no address of them is known
		// (Report.HelpBase), for the findings' links.
		Rules    []htmlRule
		Sidecars []htmlSidecar // a repository's (sidecars.go)
	}
	htmlRule struct {
		ID, Summary, Page string
	}
	htmlSidecar struct {
		ID, Name, Findings, Duration, Needs string
		Status                              Status
	}
	htmlPhase struct {
		ID, Name, File, FindingsCell, Duration string
		NoFindings                             string // what stands where there are no findings (folded.go)
		Status                                 Status
		// SidecarHeading, in a repository's run, is the sidecar whose phases start here.
		SidecarHeading *htmlSidecar
		Notes          []string
		Findings       []htmlFinding
		Locks          []htmlLock
		Access         *htmlMatrix
	}
	// htmlLock is a row of a locks phase's lock table, as its cells (lockCells).
	htmlLock struct {
		Line, Run, Statement, Relation, Mode, Blocks, Rewrite, Time, Held, Rows string
	}
	// htmlMatrix is an audit phase's access matrix: one row per object, persona and action that
	// some persona could do, a column per privilege model; an object is named on its first row.
	htmlMatrix struct {
		Models []string
		Rows   []htmlAccessRow
	}
	htmlAccessRow struct {
		Object, Persona, Action string
		Cells                   []htmlCell
	}
	htmlCell    struct{ Text, Class string }
	htmlFinding struct {
		Severity               finding.Severity
		Where, Message, Object string
		Rule, Detail           string
		// RuleURL is the rule's page: its address (Report.HelpBase), or its embedded copy.
		RuleURL string
		// Excerpt is the SQL around the finding's position, its column marked; AcceptHow and
		// AcceptText say how to accept it, and what to paste (see acceptance).
		Excerpt, AcceptHow, AcceptText string
		LeftTitle, RightTitle          string
		Rows                           []htmlRow
		// Lines, for a probe's results (column-aligned tables), are both sides in one column,
		// each changed row above the row that replaced it, so that the columns line up: never
		// wrapped inside a value, scrolled sideways instead. Rows is then nil.
		Lines []htmlLine
	}
	htmlLine struct {
		Mark, Class, Text string
		HTML              template.HTML
	}
	htmlRow struct {
		Kind, Left, Right string
		// LeftHTML and RightHTML, when set, are Left and Right escaped, with the characters that
		// changed in a changed line in <del> (left) and <ins> (right).
		LeftHTML, RightHTML   template.HTML
		LeftNo, RightNo       int
		LeftClass, RightClass string
	}
)

// WriteHTML writes the report as one self-contained HTML page (inline CSS, no script, no
// external asset) for a reviewer to open from a CI artifact: the verdict, the server it ran on,
// the phase summary, and each phase's notes and findings, with textual differences (function
// bodies, view definitions) shown side by side: from a finding's Left and Right texts, or from a
// unified diff in its Detail; the words that changed in a changed line are marked (<del>,
// <ins>), and a probe's results are a table that scrolls rather than wraps inside a value.
// Every value is escaped by html/template.
func WriteHTML(w io.Writer, r *Report) error {
	r = visibleReport(r)
	v := htmlView{Tool: r.Tool, Version: r.Version, Status: r.Status(), Counts: r.Tally(), Duration: FormatDuration(r.Duration), Server: r.ServerLine()}
	src := newSourceIndex(r)
	embedded := map[string]bool{}
	for i, row := range r.sidecarRows() {
		v.Sidecars = append(v.Sidecars, htmlSidecar{ID: fmt.Sprintf("sidecar-%d", i+1), Name: row[0], Status: Status(row[1]), Findings: row[2], Duration: row[3], Needs: row[4]})
	}
	sidecar := ""
	for i := range r.Phases {
		ph := &r.Phases[i]
		hp := htmlPhase{
			ID: fmt.Sprintf("phase-%d", i+1), Name: ph.Name, File: ph.File, Status: phaseStatus(ph),
			FindingsCell: findingsCell(ph), Duration: phaseTime(ph), Notes: ph.Notes, NoFindings: noFindingsText(ph),
		}
		if ph.Sidecar != "" && ph.Sidecar != sidecar {
			sidecar = ph.Sidecar
			for k := range v.Sidecars {
				if v.Sidecars[k].Name == sidecar {
					hp.SidecarHeading = &v.Sidecars[k]
				}
			}
		}
		for _, l := range ph.Locks {
			c := lockCells(l)
			hp.Locks = append(hp.Locks, htmlLock{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]})
		}
		for _, f := range ph.Findings {
			hf := htmlFindingOf(r, ph, f, src)
			if ri, ok := rule.Lookup(f.Rule); ok && ri.Explain != "" && r.HelpBase == "" && !embedded[f.Rule] {
				embedded[f.Rule] = true
				v.Rules = append(v.Rules, htmlRule{ID: ri.ID, Summary: ri.Summary, Page: strings.TrimLeft(ri.Explain, "\n")})
			}
			hp.Findings = append(hp.Findings, hf)
		}
		hp.Access = htmlAccess(accessMatrix(ph.Access))
		v.Phases = append(v.Phases, hp)
	}
	slices.SortFunc(v.Rules, func(a, b htmlRule) int { return strings.Compare(a.ID, b.ID) })
	if err := htmlPage.Execute(w, v); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// htmlFindingOf is a finding as the html page shows it: its texts, its rule's page, the SQL at its
// position, how to accept it, and its textual difference side by side.
func htmlFindingOf(r *Report, ph *PhaseResult, f finding.Finding, src *sourceIndex) htmlFinding {
	hf := htmlFinding{Severity: f.Severity, Message: f.Message, Object: strings.TrimSuffix(strings.TrimPrefix(f.ObjectSuffix(), " ("), ")"), Rule: f.Rule, Detail: f.Detail, LeftTitle: orDefault(f.FromLabel, orDefault(ph.LeftLabel, orDefault(r.LeftLabel, "left"))), RightTitle: orDefault(f.ToLabel, orDefault(ph.RightLabel, orDefault(r.RightLabel, "right")))}
	if f.Pos.Line > 0 {
		hf.Where = f.Pos.String()
	}
	if ri, ok := rule.Lookup(f.Rule); ok && ri.Explain != "" {
		hf.RuleURL = rule.PageURL(r.HelpBase, f.Rule)
		if hf.RuleURL == "" {
			hf.RuleURL = "#rule-" + f.Rule
		}
	}
	if lines := src.excerpt(f.Pos, 1, 2); lines != nil {
		var b bytes.Buffer
		writeExcerpt(&b, false, lines)
		hf.Excerpt = strings.TrimSuffix(b.String(), "\n")
	}
	hf.AcceptHow, hf.AcceptText = acceptance(f)
	for _, row := range sideBySide(f) {
		hr := htmlRow{Kind: row.Kind, Left: row.Left, Right: row.Right, LeftNo: row.LeftNo, RightNo: row.RightNo}
		if row.Kind == "chg" {
			hr.LeftHTML, hr.RightHTML = highlighted(row.Left, row.Right)
		}
		switch row.Kind {
		case "del", "chg", "add":
			if row.leftSide {
				hr.LeftClass = "del"
			}
			if row.rightSide {
				hr.RightClass = "add"
			}
		}
		hf.Rows = append(hf.Rows, hr)
	}
	if f.Phase == finding.PhaseProbe {
		hf.Lines, hf.Rows = tableLines(hf.Rows), nil
	} else {
		hf.Rows = collapseUnchanged(hf.Rows, htmlContext)
	}
	return hf
}

// htmlAccess is the html view of a matrix (nil for none).
func htmlAccess(m *matrix) *htmlMatrix {
	if m == nil {
		return nil
	}
	hm := &htmlMatrix{Models: m.models}
	last := ""
	for _, r := range m.rows {
		row := htmlAccessRow{Persona: r.persona, Action: r.action}
		if r.object != last {
			row.Object, last = r.object, r.object
		}
		for _, c := range r.cells {
			switch {
			case c.text == "":
				row.Cells = append(row.Cells, htmlCell{Text: "–", Class: "none"})
			case c.reach == reachOwn:
				row.Cells = append(row.Cells, htmlCell{Text: c.text, Class: "own"})
			case c.reach == reachUnowned:
				row.Cells = append(row.Cells, htmlCell{Text: c.text, Class: "unowned"})
			default:
				row.Cells = append(row.Cells, htmlCell{Text: c.text, Class: "open"})
			}
		}
		hm.Rows = append(hm.Rows, row)
	}
	return hm
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// highlighted returns a changed line and the line that replaced it as escaped HTML, the
// characters that differ in <del> and <ins> ("" when the lines share too little, see
// intraLine).
func highlighted(a, b string) (left, right template.HTML) {
	ds := intraLine(a, b)
	if ds == nil {
		return "", ""
	}
	var l, r strings.Builder
	for _, d := range ds {
		t := template.HTMLEscapeString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			l.WriteString("<del>" + t + "</del>")
		case diffmatchpatch.DiffInsert:
			r.WriteString("<ins>" + t + "</ins>")
		default:
			l.WriteString(t)
			r.WriteString(t)
		}
	}
	return template.HTML(l.String()), template.HTML(r.String()) //nolint:gosec // every piece is escaped above
}

// htmlContext is how many unchanged lines the html report shows around a change.
const htmlContext = 3

// collapseUnchanged replaces each run of unchanged rows longer than twice context (once at the
// start or end) by a hunk row saying how many lines it hides, so that a one-line change in a
// 200-line body shows as that change and a few lines around it, as a unified diff would.
func collapseUnchanged(rows []htmlRow, context int) []htmlRow {
	var out []htmlRow
	for i := 0; i < len(rows); {
		if rows[i].Kind != "eq" {
			out = append(out, rows[i])
			i++
			continue
		}
		j := i
		for j < len(rows) && rows[j].Kind == "eq" {
			j++
		}
		keepHead, keepTail := context, context
		if i == 0 {
			keepHead = 0
		}
		if j == len(rows) {
			keepTail = 0
		}
		if n := j - i - keepHead - keepTail; n > 1 {
			out = append(out, rows[i:i+keepHead]...)
			out = append(out, htmlRow{Kind: "hunk", Left: "… " + strconv.Itoa(n) + " unchanged lines"})
			out = append(out, rows[j-keepTail:j]...)
		} else {
			out = append(out, rows[i:j]...)
		}
		i = j
	}
	return out
}

// tableLines turns side-by-side rows into one column: an unchanged row once, a changed one as
// the artifact's row (−) above the port's (+).
func tableLines(rows []htmlRow) []htmlLine {
	var out []htmlLine
	for _, r := range rows {
		switch {
		case r.Kind == "hunk":
		case r.Kind == "eq":
			out = append(out, htmlLine{Text: r.Left})
		default:
			if r.LeftClass != "" {
				out = append(out, htmlLine{Mark: "−", Class: "del", Text: r.Left, HTML: r.LeftHTML})
			}
			if r.RightClass != "" {
				out = append(out, htmlLine{Mark: "+", Class: "add", Text: r.Right, HTML: r.RightHTML})
			}
		}
	}
	return out
}
