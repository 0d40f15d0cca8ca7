package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/repository"
)

// lintLong is lint's --help.
const lintLong = `lint parses each migration with PostgreSQL's parser, opens function bodies and DO blocks,
and reports every statement that breaks the sidecar contract: changes to objects the file did not
create, new tables without RLS, service_role policy or grants, a missing trailing
NOTIFY pgrst, 'reload schema', statements that fail on a second run, destructive statements, and
more. ` + "`ledgercheck explain`" + ` lists the rules; ` + "`ledgercheck explain RULE`" + ` explains one.

Each argument is a file, a directory (every .sql file under it, sorted) or a quoted pattern
that ledgercheck expands itself ('migrations/*.sql', 'supabase/**/*.sql': ** matches any
number of directories); a directory or pattern with no .sql file is an error. - reads a
migration from standard input (named <stdin> in the findings). --exclude RULE (repeatable)
turns a lint rule off for the run, as lint.severity RULE: off does.

With --install, each file is also installed into a scratch database with the configuration's
prerequisites (the Open Brain core unless prerequisites.openbrain is false, then
prerequisites.files; at --dim, default 1536), and the catalog before and after is compared with what the
statements visibly do: a change to a pre-existing object that only SQL built at run time explains
is reported as undeclared-change; and the installed security audit asks the catalog what anon and
authenticated can do with what the file created (a SECURITY DEFINER function they can execute, a
view over auth.users, a table without RLS, ...), each finding at the statement that created the
object. A fact lint already reported is not reported twice. The code the file installed is
checked too: every PL/pgSQL body with plpgsql_check, each view and SQL function planned, each
pg_cron job the file schedules run once (the phase bodies of check), each finding at its token.

A file that defines the prerequisites themselves (public.thoughts, the agent-memory tables) is a
base schema, not a sidecar: lint reports it once (base-schema). --base-schema lints it as a
migration of its own, with no object assumed to exist before it.

The text format prints one finding per line, file:line:col: severity: message [rule] (columns
count characters), the form editors and pre-commit hooks read, with the source line under it and
a caret at the column, and ends with a line that sums up (FAIL: 2 errors in 3 files); --color
always colors it, as a terminal does (auto: a terminal, NO_COLOR unset). json, sarif, github and
html are check's report (one phase per file; json is the document of docs/json-schema.md);
--output FORMAT=PATH (repeatable) writes other formats from the same run.
Exit 1 if any finding is an error.`

// lintFlags are the flags of the lint command.
type lintFlags struct {
	dim        int
	out        outputFlags
	configPath string
	install    bool
	baseSchema bool
	// exclude are --exclude's rule ids, turned off for the run.
	exclude []string
	sf      serverFlags
}

func newLintCmd(g *globals) *cobra.Command {
	f := &lintFlags{out: newOutputFlags()}
	cmd := &cobra.Command{
		Use:   "lint FILE|DIR|PATTERN...",
		Short: "Check migration files against the sidecar rules, without a database",
		Long:  lintLong,
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return f.run(cmd, g, args) },
	}
	f.out.compactText = true
	cmd.Flags().IntVar(&f.dim, "dim", 0, "require every vector(N), halfvec(N) and sparsevec(N) to have this dimension")
	f.out.add(cmd)
	cmd.Flags().StringVar(&f.configPath, "config", "", "gate configuration whose lint section (and limits) apply (default: "+config.DefaultFile+" in the working directory or the nearest directory above it in the repository, else the built-in policy for the decision ledger)")
	cmd.Flags().BoolVar(&f.baseSchema, "base-schema", false, "lint a base schema (a file that defines the prerequisites): no object is assumed to exist before it (lint.existing is ignored)")
	cmd.Flags().BoolVar(&f.install, "install", false, "also install each file into a scratch database and cross-check the catalog changes (needs Postgres)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "turn lint rule RULE off for this run (repeatable), as lint.severity RULE: off does")
	_ = cmd.RegisterFlagCompletionFunc("exclude", completeLintRuleIDs)
	addServerFlags(cmd, &f.sf)
	return cmd
}

// run lints the files args as the flags say.
func (f *lintFlags) run(cmd *cobra.Command, g *globals, args []string) error {
	if err := f.out.validate(); err != nil {
		return err
	}
	if f.dim < 0 {
		return fault.Input(fmt.Errorf("--dim %d: want a positive dimension", f.dim))
	}
	if err := checkLintRules("--exclude", f.exclude); err != nil {
		return err
	}
	conf, err := g.loadConfig(f.configPath)
	if err != nil {
		return err
	}
	f.sf.applyLimits(cmd.Flags(), conf.Limits)
	if err := f.sf.applyPostgres(cmd.Flags(), conf.Postgres); err != nil {
		return err
	}
	// The prerequisites' objects exist for lint's ownership rules (and, with --install,
	// every file is installed over them); a base schema defines them itself, and nothing
	// exists before it.
	if f.baseSchema {
		base := *conf
		base.Lint.Existing, base.Prerequisites.Files = nil, nil
		conf = &base
	}
	// The server, progress, identity, lint policy and prerequisites of every gate request.
	req, err := configRequest(conf, g, &f.sf, "lint", gate.Steps{})
	if err != nil {
		return err
	}
	if args, err = lintFiles(args); err != nil {
		return err
	}
	// Every file is checked before the first is linted, or a server started; standard input is
	// read first.
	read := map[string][]byte{}
	for _, path := range args {
		if path == stdinName {
			if read[path], err = input.Read(g.stdin, "standard input", input.Migration); err != nil {
				return fault.Input(err)
			}
			continue
		}
		if err := conf.Scope.Check(path, input.Migration); err != nil {
			return fault.Input(err)
		}
	}
	groups := []lintGroup{{req, args}}
	if conf.Version == config.RepositoryVersion && !f.baseSchema {
		if groups, err = sidecarGroups(conf, g, &f.sf, req, args); err != nil {
			return err
		}
	}
	var rep *report.Report
	for _, gr := range groups {
		gr.req.Lint = excludeRules(gr.req.Lint, f.exclude)
		r, err := gate.Lint(cmd.Context(), gate.LintRequest{
			Request: gr.req, Files: gr.files, Dim: f.dim, Install: f.install,
			Read: func(path string) ([]byte, error) {
				if src, ok := read[path]; ok {
					return src, nil
				}
				src, err := conf.Scope.ReadFile(path, input.Migration)
				if err != nil {
					return nil, fault.Input(err)
				}
				read[path] = src // quoted under its findings
				return src, nil
			},
		})
		if err != nil {
			return err
		}
		if rep == nil {
			rep = r
			continue
		}
		rep.Phases, rep.Servers = append(rep.Phases, r.Phases...), append(rep.Servers, r.Servers...)
		rep.Duration += r.Duration
	}
	rep.Source = func(file string) []byte { return read[file] }
	return f.out.render(g, rep)
}

// lintGroup are files linted with one request.
type lintGroup struct {
	req   gate.Request
	files []string
}

// sidecarGroups groups the files to lint by the sidecar of a repository's configuration each is
// a variant of, in the order of files: each group is linted with its sidecar's lint policy and
// installed (--install) over the files of the sidecars it needs and its prerequisites, as check
// installs it. A file of no sidecar is linted with base, the configuration's top-level keys.
func sidecarGroups(conf *config.Config, g *globals, sf *serverFlags, base gate.Request, files []string) ([]lintGroup, error) {
	all, err := sidecarsOf(conf, g, sf, "lint", gate.Steps{}, config.Overrides{})
	if err != nil {
		return nil, err
	}
	owner := map[string]int{} // absolute path -> index in all
	for i, s := range all {
		files := []string{s.Request.Artifact.File}
		for _, p := range s.Request.Ports {
			files = append(files, p.File)
		}
		for _, f := range files {
			if abs, err := filepath.Abs(f); f != "" && err == nil {
				owner[abs] = i
			}
		}
	}
	var groups []lintGroup
	at := map[int]int{} // sidecar index (-1: none) -> index in groups
	for _, file := range files {
		i := -1
		if abs, err := filepath.Abs(file); err == nil {
			if j, ok := owner[abs]; ok {
				i = j
			}
		}
		k, ok := at[i]
		if !ok {
			req := base
			if i >= 0 {
				req.Lint, req.NoOpenBrain = all[i].Request.Lint, all[i].Request.NoOpenBrain
				req.Prerequisites = repository.Prerequisites(all, all[i])
			}
			k, at[i] = len(groups), len(groups)
			groups = append(groups, lintGroup{req: req})
		}
		groups[k].files = append(groups[k].files, file)
	}
	return groups, nil
}
