// Package audit is the installed security audit: once a migration is installed, it asks the
// catalog what the API roles (anon, authenticated) can really do with every object the
// migration created or changed (its footprint), through PUBLIC, memberships and default
// privileges, policies and view options, in one query per install (audit.sql). The checks are
// the security lints of Supabase's database advisors (splinter), which run on live projects
// after deployment; here they run before merge, scoped to the migration.
//
// A phase in the sense of docs/architecture.md: [Check] takes a connection to the installed
// database, the parsed file (for positions), the footprint and lint's findings on the file, and
// returns findings. A fact lint already reported statically is not reported again.
package audit

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/rule"
	"github.com/ledgercheck/ledgercheck/introspect"
)

//go:embed audit.sql
var auditSQL string

// Querier runs the audit's query (a *pgx.Conn, a pgx.Tx).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Input is what the audit judges.
type Input struct {
	// File is the parse of the installed migration: findings point at the statement that
	// created each object (an object created by SQL built at run time: the EXECUTE).
	File *pgsql.File
	// Footprint is what installing the file changed: the objects audited.
	Footprint *introspect.Footprint
	// Lint is the lint policy: the exposed schemas and the reviewed definer callers.
	Lint lint.Config
	// Static are lint's findings on the file; a fact among them is not reported again.
	Static []finding.Finding
	// Statements maps the file's objects to its statements (nil: built from File).
	Statements *locate.Index
}

// row is one row of audit.sql.
type row struct {
	Rule, Kind, Object, Schema, Name string
	NArgs                            int
	Role, Detail                     string
}

// Answers are what the catalog of one install answered to the audit's query: its rows, before
// they become findings ([Findings]).
type Answers struct{ rows []row }

// Ask runs the audit's query on the database q is connected to (as a superuser or the install
// role: the privilege functions answer for the API roles whoever asks).
func Ask(ctx context.Context, q Querier, in Input) (Answers, error) {
	rels, fns, exts := scope(in.Footprint)
	if len(rels)+len(fns)+len(exts) == 0 {
		return Answers{}, nil
	}
	rs, err := q.Query(ctx, auditSQL, in.Lint.Exposed(), rels, fns, exts, append([]string{}, in.Lint.UntrustedExtensions...), lint.PgCatalogExtensions)
	if err != nil {
		return Answers{}, fmt.Errorf("security audit: %w", err)
	}
	rows, err := pgx.CollectRows(rs, pgx.RowToStructByPos[row])
	if err != nil {
		return Answers{}, fmt.Errorf("security audit: %w", err)
	}
	return Answers{rows: effectiveAccess(rows)}, nil
}

// Check runs the audit on one install and returns its findings ([Ask], then [Findings] for
// that install's privilege model alone).
func Check(ctx context.Context, q Querier, in Input) ([]finding.Finding, error) {
	a, err := Ask(ctx, q, in)
	if err != nil {
		return nil, err
	}
	return Findings(in, []string{""}, []Answers{a}), nil
}

// Empty reports whether the footprint holds nothing the audit checks: no table, view, function,
// extension or policy created or changed (the phase is then skipped, not passed).
func Empty(fp *introspect.Footprint) bool {
	rels, fns, exts := scope(fp)
	return len(rels)+len(fns)+len(exts) == 0
}

// scope lists the relations, functions and extensions the footprint created or changed; a
// policy created or changed brings its table.
func scope(fp *introspect.Footprint) (rels, fns, exts []string) {
	add := func(kind, object string) {
		switch kind {
		case introspect.KindTable, introspect.KindView:
			rels = append(rels, object)
		case introspect.KindFunction:
			fns = append(fns, object)
		case introspect.KindExtension:
			exts = append(exts, strings.Trim(object, `"`))
		case introspect.KindPolicy:
			if i := strings.LastIndex(object, " on "); i >= 0 {
				rels = append(rels, object[i+len(" on "):])
			}
		}
	}
	if fp == nil {
		return nil, nil, nil
	}
	for _, o := range fp.Created {
		add(o.Kind, o.Object)
	}
	for _, c := range fp.Changed {
		add(c.Kind, c.Object)
	}
	for _, l := range []*[]string{&rels, &fns, &exts} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
		if *l == nil {
			*l = []string{}
		}
	}
	return rels, fns, exts
}

// Findings turns the answers of the installs under each privilege model (models[i] names the
// model of answers[i], as lint.Config.Models does) into findings: one per rule and object, the
// roles of its rows joined, less the facts lint reported and the callers configuration allows.
// A role that can do it under some models only is qualified with where it can ("authenticated
// (and anon on self-hosted projects) can SELECT ..."); a finding that holds under some models
// only says so after its message.
func Findings(in Input, models []string, answers []Answers) []finding.Finding {
	static := staticFacts(in.Static)
	type key struct{ rule, object string }
	var order []key
	byKey := map[key][]row{}
	holds := map[key]map[string][]string{} // role ("" for none) -> the models it holds under
	for i, a := range answers {
		for _, r := range a.rows {
			if static.has(r) || r.Kind == "function" && r.Role != "" && callerAllowed(in.Lint, r) {
				continue
			}
			k := key{r.Rule, r.Object}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
				holds[k] = map[string][]string{}
			}
			byKey[k] = append(byKey[k], r)
			if ms := holds[k][r.Role]; len(ms) == 0 || ms[len(ms)-1] != models[i] {
				holds[k][r.Role] = append(ms, models[i])
			}
		}
	}
	var out []finding.Finding
	for _, k := range order {
		r := byKey[k][0]
		pos, created := position(in, r), position(in, row{Kind: r.Kind, Object: r.Object})
		if suppressed(in.File, r.Rule, pos) || pos != created && suppressed(in.File, r.Rule, created) {
			continue
		}
		who, only := reach(holds[k], byKey[k], len(models))
		f := finding.Finding{
			Phase: finding.PhaseAudit, Rule: r.Rule, Severity: severity(r.Rule),
			Pos: pos, Object: r.Kind + " " + r.Object, Message: message(r, who), Detail: detail(r),
		}
		if only != "" {
			f.Message += " (only " + where[only] + ")"
			f.Models = []string{only}
		}
		out = append(out, f)
	}
	sortFindings(out)
	return out
}

// reach says who a finding concerns, from the models each role holds under (of n models): the
// roles of its rows, in order, those that do not hold under every model with where they do.
// only is the model the whole finding holds under when every role (or the finding, when it
// concerns no role) holds under that one model alone; their roles are then not qualified.
func reach(holds map[string][]string, rows []row, n int) (who []string, only string) {
	var roles []string // distinct, in row order; "" for a row that concerns no role
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Role] {
			seen[r.Role] = true
			roles = append(roles, r.Role)
		}
	}
	sets := map[string]bool{} // the model lists of the roles that do not hold everywhere
	everywhere := false
	for _, role := range roles {
		if ms := holds[role]; len(ms) < n {
			sets[strings.Join(ms, ",")] = true
		} else {
			everywhere = true
		}
	}
	if !everywhere && len(sets) == 1 && len(holds[roles[0]]) == 1 {
		only = holds[roles[0]][0]
	}
	for _, role := range roles {
		switch {
		case role == "":
		case only != "" || len(holds[role]) == n:
			who = append(who, role)
		default:
			who = append(who, role+" ("+strings.Join(mapped(holds[role], where), ", ")+")")
		}
	}
	return who, only
}

// mapped is the values of m at keys.
func mapped(keys []string, m map[string]string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// sortFindings orders findings by line, then rule.
func sortFindings(out []finding.Finding) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return out[i].Rule < out[j].Rule
	})
}

func callerAllowed(cfg lint.Config, r row) bool {
	for _, c := range cfg.DefinerCallers {
		fn, err := pgsql.ParseFunctionRef(c.Function)
		if err == nil && fn.Name == (pgsql.Name{Schema: r.Schema, Name: r.Name}) && len(fn.Args) == r.NArgs && slices.Contains(c.Roles, r.Role) {
			return true
		}
	}
	return false
}

// sameFact maps an audit rule to the static rules that report the same fact (the corpus
// README's table: one fact, one finding).
var sameFact = map[string][]string{
	RuleRLSDisabledInPublic:              {lint.TableRLSDisabled},
	RulePolicyExistsRLSDisabled:          {lint.TableRLSDisabled},
	RuleRLSEnabledNoPolicy:               {lint.TableNoServiceRolePolicy},
	RuleDefinerExecutableByAnon:          {lint.SecurityDefinerPublicExecute},
	RuleDefinerExecutableByAuthenticated: {lint.SecurityDefinerPublicExecute},
	RuleUntrustedExtension:               {lint.UnsafeServerAccess},
	RuleExtensionInPgCatalog:             {lint.UnsafeServerAccess},
}

// exposures are the rules whose fact is what an API role can reach (every row of a table): a
// reviewed suppression of a static rule reviewed one part of it (no row level security, a
// grant to anon), not the exposure the parts add up to, so only a suppression of the exposure's
// own rule accepts it.
var exposures = map[string]bool{RuleRLSDisabledInPublic: true, RuleAPIReadsEveryRow: true, RuleAPIWritesEveryRow: true}

// suppressed reports whether a reviewed ledgercheck:ignore covers the statement at pos: one of
// the audit rule itself, or (but for an exposure) of a static rule that reports the same fact.
func suppressed(f *pgsql.File, id string, pos finding.Position) bool {
	if f == nil {
		return false
	}
	if lint.Suppressed(f, id, pos) {
		return true
	}
	if exposures[id] {
		return false
	}
	for _, static := range sameFact[id] {
		if lint.Suppressed(f, static, pos) {
			return true
		}
	}
	return false
}

// facts are the static findings by rule: relations by schema.name, functions by schema.name
// and argument count.
type facts map[string]map[string]bool

func staticFacts(fs []finding.Finding) facts {
	out := facts{}
	for _, f := range fs {
		id, ok := factID(f)
		if !ok {
			continue
		}
		if out[f.Rule] == nil {
			out[f.Rule] = map[string]bool{}
		}
		out[f.Rule][id] = true
	}
	return out
}

// factID identifies a static finding's object as the audit's rows do: a relation by
// schema.name, a function by schema.name and argument count.
func factID(f finding.Finding) (string, bool) {
	kind, ref, ok := strings.Cut(f.Object, " ")
	if !ok {
		return "", false
	}
	switch kind {
	case "function", "procedure":
		fn, err := pgsql.ParseFunctionRef(ref)
		if err != nil {
			return "", false
		}
		return fmt.Sprintf("%s/%d", fn.Name.String(), len(fn.Args)), true
	}
	return ref, true
}

// rowID is factID of a row's object.
func rowID(r row) string {
	id := (pgsql.Name{Schema: r.Schema, Name: r.Name}).String()
	if r.Kind == "function" {
		id = fmt.Sprintf("%s/%d", id, r.NArgs)
	}
	return id
}

func (fs facts) has(r row) bool { return fs.reportedAs(r) != "" }

// reportedAs is the static rule that reported r's fact, or "".
func (fs facts) reportedAs(r row) string {
	id := rowID(r)
	for _, rule := range sameFact[r.Rule] {
		if fs[rule][id] {
			return rule
		}
	}
	return ""
}

// Confirmation is a fact lint reported that the installed audit found too: one finding, lint's,
// which stands for both.
type Confirmation struct {
	// Static is lint's rule, Audit the audit's rule of the same fact.
	Static, Audit string
	// Models are the privilege models the audit found it under, when not every one it answered
	// for (nil: every one).
	Models []string
	id     string
}

// Stands reports whether f is the static finding c confirms.
func (c Confirmation) Stands(f finding.Finding) bool {
	id, ok := factID(f)
	return ok && f.Rule == c.Static && id == c.id
}

// Where says where the confirmation holds when not under every model ("" when it does): "on
// self-hosted projects, with the old default privileges".
func (c Confirmation) Where() string {
	return strings.Join(mapped(c.Models, where), " and ")
}

// Confirmed lists the facts of in.Static that the answers show too (each once), with the models
// (models[i] names answers[i]) they hold under when not all.
func Confirmed(in Input, models []string, answers []Answers) []Confirmation {
	static := staticFacts(in.Static)
	var out []Confirmation
	seen := map[string]int{}
	for i, a := range answers {
		for _, r := range a.rows {
			rule := static.reportedAs(r)
			if rule == "" {
				continue
			}
			c := Confirmation{Static: rule, Audit: r.Rule, id: rowID(r)}
			k := c.Static + "\x00" + c.Audit + "\x00" + c.id
			j, ok := seen[k]
			if !ok {
				j = len(out)
				seen[k] = j
				out = append(out, c)
			}
			if !slices.Contains(out[j].Models, models[i]) {
				out[j].Models = append(out[j].Models, models[i])
			}
		}
	}
	for i := range out {
		if len(out[i].Models) == len(answers) {
			out[i].Models = nil
		}
	}
	return out
}

// position finds the statement that opened what r says: for a table every row of which a
// policy opens, that policy's CREATE POLICY (when the file has it); else the statement that
// created the object of r (its CREATE, else the first EXECUTE of SQL built at run time that
// names it), else the file's first line. A suppression at either statement accepts it.
func position(in Input, r row) finding.Position {
	if in.File == nil {
		return finding.Position{}
	}
	ix := in.Statements
	if ix == nil {
		ix = locate.New(in.File)
	}
	if pol := openingPolicy(r); pol != "" {
		if pos, ok := ix.Statement("policy", pgsql.QuoteIdent(pol)+" on "+r.Object, ""); ok {
			return pos
		}
	}
	if pos, ok := ix.Statement(r.Kind, r.Object, ""); ok {
		return pos
	}
	return finding.Position{File: in.File.Name, Line: 1, Col: 1}
}

// openingPolicy is the name of the policy an every-row finding's row names, or "".
func openingPolicy(r row) string {
	switch r.Rule {
	case RuleAPIReadsEveryRow:
		pol, _, _ := strings.Cut(r.Detail, "\x1f")
		return pol
	case RuleAPIWritesEveryRow:
		_, rest, _ := strings.Cut(r.Detail, "\x1f")
		pol, _, _ := strings.Cut(rest, "\x1f")
		return pol
	}
	return ""
}

// where says where a finding, or a role's part in it, holds when it does not hold under every
// privilege model.
var where = map[string]string{
	lint.NewDefaults: "on hosted projects",
	lint.OldDefaults: "on self-hosted projects, with the old default privileges",
}

// detail is what a finding shows under its message: the condition of the policy that opens every
// row.
func detail(r row) string {
	if r.Rule != RuleAPIReadsEveryRow && r.Rule != RuleAPIWritesEveryRow {
		return ""
	}
	return r.Detail[strings.LastIndexByte(r.Detail, '\x1f')+1:]
}

// message says what the roles can do with the object, and the fix.
func message(r row, roles []string) string {
	who := strings.Join(roles, " and ")
	obj := r.Kind + " " + finding.ShortIdentity(r.Object)
	switch r.Rule {
	case RuleDefinerExecutableByAnon, RuleDefinerExecutableByAuthenticated:
		return fmt.Sprintf("%s can execute SECURITY DEFINER %s, with its owner's rights, through the Data API; REVOKE EXECUTE ... FROM PUBLIC, anon, authenticated", who, obj)
	case RuleAuthUsersExposed:
		return fmt.Sprintf("%s can SELECT %s, which reads auth.users: every user's email and metadata; revoke it or read what is needed through a SECURITY INVOKER view of the file's own table", who, obj)
	case RuleSecurityDefinerView:
		return fmt.Sprintf("%s can SELECT %s, which has no security_invoker and reads with its owner's rights, past row level security; CREATE VIEW ... WITH (security_invoker = true)", who, obj)
	case RuleRLSDisabledInPublic:
		return fmt.Sprintf("%s can SELECT %s, which is in an exposed schema without row level security: they read every row through the Data API (and write it where granted); ENABLE ROW LEVEL SECURITY", who, obj)
	case RuleAPIReadsEveryRow:
		pol, _, _ := strings.Cut(r.Detail, "\x1f")
		return fmt.Sprintf("%s can read every row of %s: policy %q is always true for them; test the row (auth.uid() = owner_id), or accept it with ledgercheck:ignore %s", who, obj, pol, RuleAPIReadsEveryRow)
	case RuleAPIWritesEveryRow:
		cmds, rest, _ := strings.Cut(r.Detail, "\x1f")
		pol, _, _ := strings.Cut(rest, "\x1f")
		return fmt.Sprintf("%s can %s every row of %s: policy %q is always true for them; test the row (auth.uid() = owner_id), or accept it with ledgercheck:ignore %s", who, cmds, obj, pol, RuleAPIWritesEveryRow)
	case RulePolicyExistsRLSDisabled:
		return fmt.Sprintf("%s has policies (%s) but row level security is off, so they do nothing; ENABLE ROW LEVEL SECURITY", obj, r.Detail)
	case RuleRLSEnabledNoPolicy:
		return fmt.Sprintf("%s has row level security on and no policy: every Data API request but service_role's is denied; add the policy that states the intended access", obj)
	case RulePolicyAlwaysTrue:
		return fmt.Sprintf("%s lets %s %s every row (USING/WITH CHECK true); test the row, e.g. auth.uid() = user_id", obj, r.Role, strings.ToLower(r.Detail))
	case RuleFkeyToAuthUnique:
		return fmt.Sprintf("%s has a foreign key (%s) to a unique constraint of the auth schema other than a primary key: Supabase may change such a constraint, and the key would then stop it; reference auth.users (id)", obj, r.Detail)
	case RuleExtensionInPublic:
		return fmt.Sprintf("%s is installed in schema public, which the Data API exposes; CREATE EXTENSION ... WITH SCHEMA extensions", obj)
	case RuleUntrustedExtension:
		return fmt.Sprintf("%s is installed, and ledgercheck.yaml lists it as untrusted (lint.untrusted_extensions): it reaches outside the database or past its privileges; drop it from the migration", obj)
	case RuleExtensionInPgCatalog:
		return fmt.Sprintf("%s is installed in schema pg_catalog, where every session resolves names before any other schema; CREATE EXTENSION ... WITH SCHEMA extensions", obj)
	case RuleMaterializedViewInAPI, RuleForeignTableInAPI:
		return fmt.Sprintf("%s can SELECT %s, which has no row level security: every row is readable through the Data API; revoke it or expose the data through a table with RLS", who, obj)
	}
	return fmt.Sprintf("%s: %s", r.Rule, obj)
}

// severity is rule id's default severity in the catalog.
func severity(id string) finding.Severity {
	r, _ := rule.Registered(id)
	return r.Severity
}
