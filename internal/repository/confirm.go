package repository

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// A sidecar that does not install may lack a need: it reads a column, calls a function or names
// a type another sidecar creates, and its configuration does not say it needs that sidecar. The
// reading of the files (needs.go) names the candidates; the install decides: the sidecar's file
// is installed again over its needs and a candidate (with the candidate's own needs), and a
// candidate over which it gets past the statement that failed is suggested in the finding
// ("readwise-books reads column public.thoughts.source_type (line 3), which enhanced-thoughts
// adds: add needs: [enhanced-thoughts]"). At most maxConfirm candidates are tried per sidecar,
// each one database copied from the sidecar's template.

// maxConfirm bounds the installs a failing sidecar's suggestion costs.
const maxConfirm = 3

// needRules are the rules of the findings a missing need can cause, at the statement that uses
// what the need creates. The hook for issue 32's bodies step (plpgsql_check on the installed
// functions): its rule joins this list, and installsOver, which now confirms a candidate by the
// install getting past the statement, runs that check too, so that a body reading a column
// another sidecar adds gets the need suggested as a statement that does not install does.
var needRules = []string{install.RuleInstallFailed}

// suggester finds and confirms the needs the run's failing sidecars lack. Its reading of the
// files is made once, for the first sidecar that needs it.
type suggester struct {
	all  []Sidecar
	once sync.Once
	read map[string][]Need // each sidecar's needs, as its file reads
}

// needs returns the needs of the sidecar named name as the files read.
func (sg *suggester) needs(name string) []Need {
	sg.once.Do(func() {
		files := make([]NeedsOf, len(sg.all))
		for i, s := range sg.all {
			f, uses, _ := pgsql.ParseUses(s.Request.Artifact.File, s.Request.Artifact.Src)
			files[i] = NeedsOf{Sidecar: s.Name, File: f, Uses: uses}
		}
		policy := sg.all[0].Request.Lint
		found := FindNeeds(files, policy)
		sg.read = map[string][]Need{}
		for i, s := range sg.all {
			sg.read[s.Name] = found[i]
		}
	})
	return sg.read[name]
}

// suggest adds to the finding a missing need caused in rep (s's report, whose request was r) the
// need that the install confirms, if any.
func (sg *suggester) suggest(ctx context.Context, srv *scratch.Server, s Sidecar, r gate.Request, rep *report.Report) error {
	f := needFinding(rep, r.Artifact.File)
	if f == nil {
		return nil
	}
	has := Closure(sg.all, []string{s.Name}, needsOf)
	dependents := Affected(sg.all, []string{s.Name})
	var candidates []Need
	for _, n := range sg.needs(s.Name) {
		for _, c := range append([]string{n.Sidecar}, n.Alternatives...) {
			if !slices.Contains(has, c) && !slices.Contains(dependents, c) {
				alt := n
				alt.Sidecar, alt.Alternatives = c, nil
				candidates = append(candidates, alt)
			}
		}
	}
	slices.SortStableFunc(candidates, func(a, b Need) int {
		if a.Certain == b.Certain {
			return 0
		}
		if a.Certain {
			return -1
		}
		return 1
	})
	for _, n := range candidates[:min(len(candidates), maxConfirm)] {
		ok, err := sg.installsOver(ctx, srv, s, r, n.Sidecar, f.Pos)
		if err != nil {
			return err
		}
		if ok {
			f.Message += fmt.Sprintf("; %s: add needs: [%s] (installed over it, the file gets past this statement)", n.Sentence(s.Name), n.Sidecar)
			return nil
		}
	}
	return nil
}

// needFinding is the first finding of rep (one sidecar's report) of a rule a missing need can
// cause, in file (the sidecar's artifact: a port's is not what installsOver installs).
func needFinding(rep *report.Report, file string) *finding.Finding {
	for i := range rep.Phases {
		ph := &rep.Phases[i]
		for j := range ph.Findings {
			if slices.Contains(needRules, ph.Findings[j].Rule) && ph.Findings[j].Pos.File == file {
				return &ph.Findings[j]
			}
		}
	}
	return nil
}

// installsOver reports whether s's file, installed over its needs and the sidecar named cand (and
// what cand needs), gets past the statement that failed at failed: it installs, or fails at a
// later statement (the same statement failing elsewhere in it is no confirmation).
func (sg *suggester) installsOver(ctx context.Context, srv *scratch.Server, s Sidecar, r gate.Request, cand string, failed finding.Position) (bool, error) {
	var c Sidecar
	for _, x := range sg.all {
		if x.Name == cand {
			c = x
		}
	}
	var extra []gate.SQLFile
	for _, x := range append(Prerequisites(sg.all, c), gate.SQLFile{Name: c.Request.Artifact.File, Src: c.Request.Artifact.Src}) {
		if !slices.ContainsFunc(r.Prerequisites, func(y gate.SQLFile) bool { return y.Name == x.Name }) {
			extra = append(extra, x)
		}
	}
	spec := gate.Templates(r)[0]
	db, err := srv.NewDatabaseFrom(ctx, spec.Dim, spec.Base)
	if err != nil {
		return false, err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = db.Drop(dctx)
	}()
	for _, x := range extra {
		if err := sqlscript.ExecFile(ctx, db, x.Name, x.Src); err != nil {
			if _, ok := install.Finding(err); ok {
				return false, nil // the candidate does not install here: not this one
			}
			return false, err
		}
	}
	err = sqlscript.ExecFile(ctx, db, r.Artifact.File, r.Artifact.Src)
	if err == nil {
		return true, nil
	}
	var se *scratch.ScriptError
	if _, ok := install.Finding(err); !ok || !errors.As(err, &se) {
		return false, err
	}
	return se.Stmt > statementAt(r.Artifact.File, r.Artifact.Src, failed), nil
}

// statementAt is the index of the top-level statement of the file (name, src) at pos: the last
// one that starts at or before it (-1 when the file does not parse).
func statementAt(name string, src []byte, pos finding.Position) int {
	f, err := pgsql.Parse(name, src)
	if err != nil {
		return -1
	}
	at := -1
	for _, st := range f.Stmts {
		if st.Pos.Line < pos.Line || st.Pos.Line == pos.Line && st.Pos.Col <= pos.Col {
			at = st.Index
		}
	}
	return at
}
