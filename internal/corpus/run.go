package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
)

// Options say how to run the corpus.
type Options struct {
	// Dir is the corpus directory (testdata/corpus); Root the repository root, whose
	// configuration (Expect.Defaults.Config) supplies the lint policy.
	Dir, Root string
	// Server, when not nil, installs every file (lint --install): the file's needs first, then
	// the file, its cross-check and its security audit. Nil runs lint alone.
	Server *scratch.Server
	// Only, when not empty, restricts the run to these files.
	Only []string
}

// Run lints (and installs) every labelled file and matches the findings with the labels.
func Run(ctx context.Context, e *Expect, opts Options) ([]FileResult, error) {
	conf, err := config.Load(filepath.Join(opts.Root, e.Defaults.Config), false)
	if err != nil {
		return nil, err
	}
	var out []FileResult
	for _, name := range e.Names() {
		if len(opts.Only) > 0 && !contains(opts.Only, name) {
			continue
		}
		fe := e.Files[name]
		path := filepath.Join(opts.Dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		req := gate.LintRequest{
			Request: gate.Request{Lint: conf.Lint, Server: opts.Server},
			Files:   []string{name}, Dim: e.Defaults.Dim,
			Read:    func(string) ([]byte, error) { return src, nil },
			Install: opts.Server != nil,
		}
		// A file with needs is installed over them (a setup, after which the gate snapshots
		// and observes each database afresh); one without is installed over the template
		// alone, as lint --install does, and starts from the template's description.
		if len(fe.Needs) > 0 {
			req.Setup = func(ctx context.Context, db *scratch.Database) error {
				return installNeeds(ctx, db, opts.Dir, fe.Needs)
			}
		}
		rep, err := gate.Lint(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("corpus: %s: %w", name, err)
		}
		var reported []finding.Finding
		for _, ph := range rep.Phases {
			reported = append(reported, ph.Findings...)
		}
		out = append(out, Match(name, fe, reported, spans(name, src)))
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// installNeeds runs a file's needs in db: env/*.sql as the superuser (they stand in for what an
// administrator installs on Supabase), other corpus files as the install role.
func installNeeds(ctx context.Context, db *scratch.Database, dir string, needs []string) error {
	for _, n := range needs {
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		if !strings.HasPrefix(n, "env/") {
			if err := sqlscript.ExecFile(ctx, db, n, src); err != nil {
				return fmt.Errorf("corpus: installing %s: %w", n, err)
			}
			continue
		}
		conn, err := db.ConnectAdmin(ctx)
		if err != nil {
			return err
		}
		err = sqlscript.ExecConn(ctx, conn, n, src, db.Dim)
		conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // a connection of its own, closed either way
		if err != nil {
			return fmt.Errorf("corpus: installing %s: %w", n, err)
		}
	}
	return nil
}

// spans returns the line span of each top-level statement of src (none when it does not parse).
func spans(name string, src []byte) Spans {
	var sp Spans
	f, err := pgsql.Parse(name, src)
	if err != nil {
		return sp
	}
	for _, st := range f.Stmts {
		sp.Start = append(sp.Start, st.Pos.Line)
		sp.End = append(sp.End, f.Pos(st.End).Line)
	}
	return sp
}
