package parity

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Installed is one variant as the gate installed it: what the comparison needs.
type Installed struct {
	// Name is the variant's role ("artifact", "port"), File its migration as the user named
	// it, Dim its vector dimension.
	Name, File string
	Dim        int
	// Server is the server version the variant ran on ("17.10"); "" when unknown.
	Server string
	// Source is the parsed migration, for the declared signatures and the dimension scan.
	Source *pgsql.File
	// Footprint is what installing it changed in the catalog.
	Footprint *introspect.Footprint
	// Rows and Errs are each probe's result on the install with the fixture, in probe order:
	// the rows, or the error the probe failed with.
	Rows []*scratch.Rows
	Errs []error
	// Statements maps the objects of Source to its statements (nil: none); differences point
	// at them.
	Statements *locate.Index
	// Live, when set, says where this variant was read from rather than installed: a database
	// (user@host:port/dbname, no password), only read. Footprint is then what it holds of the
	// objects in scope (introspect.Deployed); Source and Rows are its File's, when File is set
	// (the file's scratch install), else nil.
	Live string
}

// shown names the variant's migration in notes: its file, or the database it was read from.
func (in Installed) shown() string {
	if in.File == "" {
		return "database " + in.Live
	}
	return in.File
}

// ProbeResult is one probe's outcome.
type ProbeResult struct {
	Name string `json:"name"`
	// Equal reports whether the results agree (within the tolerance).
	Equal    bool              `json:"equal"`
	Artifact *scratch.Rows     `json:"artifact,omitempty"`
	Port     *scratch.Rows     `json:"port,omitempty"`
	Error    map[string]string `json:"error,omitempty"`
}

// Timings are the wall times of a comparison. Total counts in the parity phase's duration; the
// installs are the gate's.
type Timings struct {
	Diff  time.Duration
	Total time.Duration
}

// Report is the outcome of [Compare].
type Report struct {
	// Artifact and Port are the two installs compared.
	Artifact diff.VariantInfo
	Port     diff.VariantInfo
	// Allowlist is the allowlist's path ("" for none).
	Allowlist string
	// Differences are every catalog and probe difference, sorted.
	Differences []diff.Difference
	// Sites are the dimension normalizations.
	Sites []diff.Site
	// Outcome sorts the differences by review state and lists stale entries.
	Outcome *allowlist.Outcome
	// Probes are the probe results in configuration order.
	Probes []ProbeResult
	// ProbesSkipped, when set, says why no probe was compared (a variant read from a database
	// without its file has no scratch install to run them on); ProbesNotes say where they ran
	// when a variant was read from a database.
	ProbesSkipped string
	ProbesNotes   []string
	// Notes say where a variant read from a database came from, which server versions the variants
	// ran on, and what could not be checked.
	Notes []string
	// Timings are how long the comparison took.
	Timings Timings
	// ProbeCauses maps each probe whose difference needs a review to its likely causes: the
	// catalog differences needing a review on the objects its SQL names (see [probeCauses]).
	// `allowlist suggest` gives the probes of one cause one entry.
	ProbeCauses map[string][]string

	portFile string // the port's migration, "" for a database read without its file
	// statements are the artifact's and the port's statement maps, reads what each differing
	// probe reads: where each finding points, and what a probe difference is likely caused by.
	statements [2]*locate.Index
	reads      map[string]probeReads
}

// Passed reports whether every difference is accepted and no entry is stale.
func (r *Report) Passed() bool { return r.Outcome.Passed() }

// Compare compares the port with the artifact: their footprints attribute by attribute
// (github.com/ledgercheck/ledgercheck/diff, declared signatures and the dimension scan from the parsed sources
// included), and each probe's rows; then it filters the differences through the port's
// allowlist (nil accepts nothing). A probe that fails on both installs is a configuration error
// ([fault.Input]).
func Compare(artifact, port Installed, probes []probe.Probe, al *allowlist.File) (*Report, error) {
	t0 := time.Now()
	artSrc, portSrc := DeclaredSource(artifact.Source), DeclaredSource(port.Source)
	if artSrc == nil || portSrc == nil { // a variant read from a database without its file declares nothing
		artSrc, portSrc = nil, nil
	}
	res := diff.Compare(
		diff.Install{File: artifact.shown(), Dim: artifact.Dim, Footprint: artifact.Footprint, Source: artSrc},
		diff.Install{File: port.shown(), Dim: port.Dim, Footprint: port.Footprint, Source: portSrc},
	)
	rep := &Report{Artifact: res.Artifact, Port: res.Port, Sites: res.Sites, Differences: res.Differences}
	if note, differ := versionNote(artifact, port); differ {
		rep.Notes = append(rep.Notes, note)
	}
	live, probeNotes, skipped := liveNotes(artifact, port)
	rep.Notes, rep.ProbesNotes, rep.ProbesSkipped = append(rep.Notes, live...), probeNotes, skipped
	rep.portFile = port.File
	if len(probes) == 0 && rep.ProbesSkipped == "" {
		rep.ProbesSkipped = "not run: the configuration has no probes, so the behaviour of the two installs (RPC results, views, rows) is not compared; add probes: to ledgercheck.yaml"
	}
	rep.statements, rep.reads = [2]*locate.Index{artifact.Statements, port.Statements}, map[string]probeReads{}
	if rep.ProbesSkipped != "" {
		probes = nil
	}
	for i, p := range probes {
		pr, d, err := compareProbe(p, probeRows(artifact, i), probeRows(port, i), probeErr(artifact, i), probeErr(port, i))
		if err != nil {
			return nil, err
		}
		rep.Probes = append(rep.Probes, pr)
		if d != nil {
			rep.Differences = append(rep.Differences, *d)
			rep.reads[p.Name] = readsOf(p, port.Dim)
		}
	}
	slices.SortFunc(rep.Differences, func(a, b diff.Difference) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
	})
	if al != nil {
		rep.Allowlist = al.Path
	}
	rep.Outcome = al.Apply(rep.Differences)
	rep.ProbeCauses = probeCauses(rep.reads, rep.Outcome)
	rep.Timings = Timings{Diff: time.Since(t0), Total: time.Since(t0)}
	return rep, nil
}

func probeRows(v Installed, i int) *scratch.Rows {
	if i < len(v.Rows) {
		return v.Rows[i]
	}
	return nil
}

func probeErr(v Installed, i int) error {
	if i < len(v.Errs) {
		return v.Errs[i]
	}
	return nil
}

// kindProbe is the kind of a probe's difference.
const kindProbe = "probe"

// compareProbe compares one probe's results; the difference, if any, has kind "probe", the
// probe's name as object and attribute "rows", and the rendered results as values.
func compareProbe(p probe.Probe, l, r *scratch.Rows, lerr, rerr error) (ProbeResult, *diff.Difference, error) {
	pr := ProbeResult{Name: p.Name, Artifact: l, Port: r}
	if lerr != nil && rerr != nil {
		return pr, nil, fault.Input(fault.Wrapf(lerr, "probe %q fails on both installs: %s", p.Name, oneLine(lerr.Error())))
	}
	lt, rt := "", ""
	switch {
	case lerr != nil:
		pr.Error = map[string]string{"artifact": oneLine(lerr.Error())}
		lt, rt = "error: "+oneLine(lerr.Error())+"\n", RenderRows(r)
	case rerr != nil:
		pr.Error = map[string]string{"port": oneLine(rerr.Error())}
		lt, rt = RenderRows(l), "error: "+oneLine(rerr.Error())+"\n"
	default:
		if rowsEqual(l, r, p.Tolerance) {
			pr.Equal = true
			return pr, nil, nil
		}
		lt, rt = RenderRows(l), RenderRows(r)
	}
	d := &diff.Difference{Kind: kindProbe, Object: p.Name, Attr: "rows", Artifact: lt, Port: rt, Class: introspect.Semantic}
	d.ArtifactText, d.PortText = alignedRows(l, r, lerr, rerr)
	if p.Tolerance > 0 {
		d.Note = fmt.Sprintf("numeric values compared with tolerance %g", p.Tolerance)
	}
	d.ID = "probe " + p.Name + " rows #" + strings.TrimPrefix(d.Digest(), "sha256:")[:12]
	return pr, d, nil
}

// probeCauses relates each probe whose difference needs a review (unreviewed, or changed since
// review) to the catalog differences that need one on an object it reads (reads, the parse of
// its SQL that also places its finding): the object's own name (a function, view or table,
// without schema or arguments) or, for a column, constraint, trigger or policy, its table's. A
// heuristic that names the likely cause; it never decides whether there is a difference.
func probeCauses(reads map[string]probeReads, o *allowlist.Outcome) map[string][]string {
	var catalog, probed []diff.Difference
	collect := func(d diff.Difference) {
		if d.Kind == kindProbe {
			probed = append(probed, d)
		} else {
			catalog = append(catalog, d)
		}
	}
	for _, d := range o.Unreviewed {
		collect(d)
	}
	for _, c := range o.Changed {
		for _, d := range c.Differences {
			collect(d)
		}
	}
	out := map[string][]string{}
	for _, pd := range probed {
		words := map[string]bool{}
		rd := reads[pd.Object]
		for _, n := range slices.Concat(rd.funcs, rd.rels) {
			words[strings.ToLower(n.Name)] = true
		}
		for _, d := range catalog {
			for _, n := range namesOf(d.Kind, d.Object) {
				if words[strings.ToLower(n)] {
					c := d.Kind + " " + finding.ShortIdentity(d.Object)
					if d.Attr != "" {
						c += " " + d.Attr
					}
					out[pd.Object] = append(out[pd.Object], c)
					break
				}
			}
		}
	}
	return out
}

// namesOf returns the bare names a probe's SQL would use for an object: its own, and for an
// object on a table (column, constraint, trigger, policy), the table's.
func namesOf(kind, object string) []string {
	last := func(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
	if i := strings.IndexByte(object, '('); i >= 0 {
		object = object[:i]
	}
	if name, table, ok := strings.Cut(object, " on "); ok {
		return []string{last(name), last(table)}
	}
	if kind == introspect.KindColumn {
		if i := strings.LastIndexByte(object, '.'); i >= 0 {
			return []string{last(object[:i])}
		}
	}
	return []string{last(object)}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// RenderRows renders a result as text: a header line, then one line per row, values separated
// by " | " (NULL as \N).
func RenderRows(r *scratch.Rows) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.Join(r.Columns, " | ") + "\n")
	for _, row := range r.Rows {
		b.WriteString(strings.Join(row, " | ") + "\n")
	}
	return b.String()
}

// alignedRows renders two results for display (the digest is of [RenderRows]): the columns
// padded to one width across both results, so that the two tables line up and a changed cell
// stands out; an error is shown as the error.
func alignedRows(l, r *scratch.Rows, lerr, rerr error) (string, string) {
	var widths []int
	measure := func(row []string) {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, t := range []*scratch.Rows{l, r} {
		if t == nil {
			continue
		}
		measure(t.Columns)
		for _, row := range t.Rows {
			measure(row)
		}
	}
	render := func(t *scratch.Rows, err error) string {
		if err != nil {
			return "error: " + oneLine(err.Error()) + "\n"
		}
		if t == nil {
			return ""
		}
		var b strings.Builder
		line := func(row []string) {
			var cells []string
			for i, c := range row {
				cells = append(cells, c+strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
			b.WriteString(strings.TrimRight(strings.Join(cells, " | "), " ") + "\n")
		}
		line(t.Columns)
		for _, row := range t.Rows {
			line(row)
		}
		return b.String()
	}
	return render(l, lerr), render(r, rerr)
}

// rowsEqual compares two results cell by cell; with a tolerance, two cells that both parse as
// numbers are equal when they differ by at most tol.
func rowsEqual(a, b *scratch.Rows, tol float64) bool {
	if strings.Join(a.Columns, "\x00") != strings.Join(b.Columns, "\x00") || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Rows {
		if len(a.Rows[i]) != len(b.Rows[i]) {
			return false
		}
		for j := range a.Rows[i] {
			x, y := a.Rows[i][j], b.Rows[i][j]
			if x == y {
				continue
			}
			if tol <= 0 {
				return false
			}
			fx, ex := strconv.ParseFloat(x, 64)
			fy, ey := strconv.ParseFloat(y, 64)
			if ex != nil || ey != nil || math.Abs(fx-fy) > tol {
				return false
			}
		}
	}
	return true
}
