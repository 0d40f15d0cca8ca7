package parity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"ledgercheck/diff"
	"ledgercheck/internal/allowlist"
	"ledgercheck/internal/fault"
	"ledgercheck/internal/install"
	"ledgercheck/internal/pgsql"
	"ledgercheck/internal/scratch"
	"ledgercheck/internal/sqlscript"
	"ledgercheck/introspect"
)

// Script is a named SQL file.
type Script struct {
	// Name is the file as the user named it, used in positions.
	Name string
	Src  []byte
}

// Variant is one side: a migration at a vector dimension.
type Variant struct {
	Script
	Dim int
}

// Probe is a query whose results must be the same on both installs (see config.Probe).
type Probe struct {
	Name      string
	SQL       string
	Tolerance float64
	Role      string
}

// Options configure [Run].
type Options struct {
	Left, Right Variant
	// NoPrerequisites installs the environment only, not the Open Brain prerequisites.
	NoPrerequisites bool
	// Extra are SQL files run in both databases after the prerequisites, before the variant.
	Extra []Script
	// Allowlist is the reviewed differences; nil accepts nothing.
	Allowlist *allowlist.File
	// Fixture is loaded into both installs after the variant; nil loads nothing (and then probes
	// see empty tables).
	Fixture *Script
	// Probes run on both installs after the fixture.
	Probes []Probe
	// Snapshot selects what the footprints include.
	Snapshot introspect.Options
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// InstallError is a variant, an extra file or the fixture that failed to install: a finding
// (exit 1), since the migration under review is what failed.
type InstallError struct {
	// Side is "artifact" or "port".
	Side string
	// File is the script that failed.
	File string
	// Err is a *scratch.ScriptError or *pgsql.SyntaxError with the position.
	Err error
}

func (e *InstallError) Error() string {
	return fmt.Sprintf("%s: installing %s failed: %s", e.Side, e.File, e.Err)
}

func (e *InstallError) Unwrap() error { return e.Err }

// ProbeResult is one probe's outcome.
type ProbeResult struct {
	Name string `json:"name"`
	// Equal reports whether the results agree (within the tolerance).
	Equal bool              `json:"equal"`
	Left  *scratch.Rows     `json:"left,omitempty"`
	Right *scratch.Rows     `json:"right,omitempty"`
	Error map[string]string `json:"error,omitempty"`
}

// Timings are the wall times of the phases of a run.
type Timings struct {
	Install time.Duration `json:"install"`
	Diff    time.Duration `json:"diff"`
	Total   time.Duration `json:"total"`
}

// Report is the outcome of [Run].
type Report struct {
	Left  diff.SideInfo `json:"left"`
	Right diff.SideInfo `json:"right"`
	// Allowlist is the allowlist's path ("" for none).
	Allowlist string `json:"allowlist"`
	// Differences are every catalog and probe difference, sorted.
	Differences []diff.Difference `json:"-"`
	// Sites are the dimension normalizations.
	Sites []diff.Site `json:"-"`
	// Outcome sorts the differences by review state and lists stale entries.
	Outcome *allowlist.Outcome `json:"-"`
	// Probes are the probe results in configuration order.
	Probes  []ProbeResult `json:"-"`
	Timings Timings       `json:"-"`
	// Footprints and Sources are each side's install footprint and parsed migration (left,
	// right), for checks that need the installs themselves (lint's cross-check).
	Footprints [2]*introspect.Footprint `json:"-"`
	Sources    [2]*pgsql.File           `json:"-"`
}

// Passed reports whether every difference is accepted and no entry is stale.
func (r *Report) Passed() bool { return r.Outcome.Passed() }

type sideRun struct {
	fp     *introspect.Footprint
	src    *pgsql.File
	probes []*scratch.Rows
	perr   []error
	err    error
}

// Run installs both variants in parallel, each in its own scratch database of srv, takes their
// footprints, loads the fixture, runs the probes, compares, and applies the allowlist. An
// install that fails is an [*InstallError]; a probe that fails on both sides is a
// configuration error ([fault.Input]); other errors are the environment's.
func Run(ctx context.Context, srv *scratch.Server, opts Options) (*Report, error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	t0 := time.Now()
	// The two sides install in parallel, each in its own database. Roles are cluster-wide, but a
	// snapshot sees them from its database (introspect lists the roles the database uses), so a
	// role one side creates does not show up in the other's footprint.
	var runs [2]sideRun
	var wg sync.WaitGroup
	for i, v := range []Variant{opts.Left, opts.Right} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fault.Recover(&runs[i].err) // a panic is this side's error, not a crash
			runs[i] = runSide(ctx, srv, [2]string{"artifact", "port"}[i], v, opts, logw)
		}()
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			return nil, r.err
		}
	}
	tInstall := time.Since(t0)

	t1 := time.Now()
	res := diff.Compare(
		diff.Side{Label: "left", File: opts.Left.Name, Dim: opts.Left.Dim, Footprint: runs[0].fp, Source: DeclaredSource(runs[0].src)},
		diff.Side{Label: "right", File: opts.Right.Name, Dim: opts.Right.Dim, Footprint: runs[1].fp, Source: DeclaredSource(runs[1].src)},
	)
	rep := &Report{Left: res.Left, Right: res.Right, Sites: res.Sites, Differences: res.Differences,
		Footprints: [2]*introspect.Footprint{runs[0].fp, runs[1].fp}, Sources: [2]*pgsql.File{runs[0].src, runs[1].src}}
	for i, p := range opts.Probes {
		pr, d, err := compareProbe(p, runs[0].probes[i], runs[1].probes[i], runs[0].perr[i], runs[1].perr[i])
		if err != nil {
			return nil, err
		}
		rep.Probes = append(rep.Probes, pr)
		if d != nil {
			rep.Differences = append(rep.Differences, *d)
		}
	}
	slices.SortFunc(rep.Differences, func(a, b diff.Difference) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
	})
	if opts.Allowlist != nil {
		rep.Allowlist = opts.Allowlist.Path
	}
	rep.Outcome = opts.Allowlist.Apply(rep.Differences)
	rep.Timings = Timings{Install: tInstall, Diff: time.Since(t1), Total: time.Since(t0)}
	return rep, nil
}

// runSide installs one variant into a database of its own, loads the fixture and runs the probes.
// Every script is bounded by the server's install time limit.
func runSide(ctx context.Context, srv *scratch.Server, label string, v Variant, opts Options, logw io.Writer) (r sideRun) {
	t0 := time.Now()
	src, err := sqlscript.Parse(v.Name, v.Src, v.Dim)
	if err != nil {
		r.err = &InstallError{Side: label, File: v.Name, Err: err}
		return r
	}
	r.src = src
	var db *scratch.Database
	if opts.NoPrerequisites {
		db, err = srv.NewEnvDatabase(ctx)
		if err == nil {
			db.Dim = v.Dim
		}
	} else {
		db, err = srv.NewDatabase(ctx, v.Dim)
	}
	if err != nil {
		r.err = err
		return r
	}
	defer db.Drop(context.WithoutCancel(ctx)) //nolint:errcheck // the server drops leftovers on Close
	for _, x := range opts.Extra {
		if err := sqlscript.ExecFile(ctx, db, x.Name, x.Src); err != nil {
			r.err = installErr(label, x.Name, err)
			return r
		}
	}
	fp, _, err := install.Footprint(ctx, db, sqlscript.Script(src), nil, opts.Snapshot)
	if err != nil {
		r.err = installErr(label, v.Name, err)
		return r
	}
	r.fp = fp
	if opts.Fixture != nil {
		if err := sqlscript.ExecFile(ctx, db, opts.Fixture.Name, opts.Fixture.Src); err != nil {
			r.err = installErr(label, opts.Fixture.Name, err)
			return r
		}
	}
	r.probes = make([]*scratch.Rows, len(opts.Probes))
	r.perr = make([]error, len(opts.Probes))
	if len(opts.Probes) > 0 {
		conn, err := db.Connect(ctx)
		if err != nil {
			r.err = err
			return r
		}
		defer conn.Close(context.WithoutCancel(ctx))
		for i, p := range opts.Probes {
			r.probes[i], r.perr[i] = scratch.QueryRollback(ctx, conn, scratch.SubstituteDim(p.SQL, v.Dim), scratch.QueryOptions{Role: p.Role})
			if ctx.Err() != nil {
				r.err = ctx.Err()
				return r
			}
		}
	}
	fmt.Fprintf(logw, "parity: %s: %s at dimension %d installed, fixture loaded, %d probes run in %s\n", label, v.Name, v.Dim, len(opts.Probes), time.Since(t0).Round(time.Millisecond))
	return r
}

func installErr(side, file string, err error) error {
	var se *scratch.ScriptError
	var pe *pgsql.SyntaxError
	if errors.As(err, &se) || errors.As(err, &pe) {
		return &InstallError{Side: side, File: file, Err: err}
	}
	return err
}

// compareProbe compares one probe's results; the difference, if any, has kind "probe", the
// probe's name as object and attribute "rows", and the rendered results as values.
func compareProbe(p Probe, l, r *scratch.Rows, lerr, rerr error) (ProbeResult, *diff.Difference, error) {
	pr := ProbeResult{Name: p.Name, Left: l, Right: r}
	if lerr != nil && rerr != nil {
		return pr, nil, fault.Input(fmt.Errorf("probe %q fails on both installs: %s", p.Name, oneLine(lerr.Error())))
	}
	lt, rt := "", ""
	switch {
	case lerr != nil:
		pr.Error = map[string]string{"left": oneLine(lerr.Error())}
		lt, rt = "error: "+oneLine(lerr.Error())+"\n", RenderRows(r)
	case rerr != nil:
		pr.Error = map[string]string{"right": oneLine(rerr.Error())}
		lt, rt = RenderRows(l), "error: "+oneLine(rerr.Error())+"\n"
	default:
		if rowsEqual(l, r, p.Tolerance) {
			pr.Equal = true
			return pr, nil, nil
		}
		lt, rt = RenderRows(l), RenderRows(r)
	}
	d := &diff.Difference{Kind: "probe", Object: p.Name, Attr: "rows", Left: lt, Right: rt, Class: introspect.Semantic}
	if p.Tolerance > 0 {
		d.Note = fmt.Sprintf("numeric values compared with tolerance %g", p.Tolerance)
	}
	d.ID = "probe " + p.Name + " rows #" + strings.TrimPrefix(d.Digest(), "sha256:")[:12]
	return pr, d, nil
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
