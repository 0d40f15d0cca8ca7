package crosscheck

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/lint"
	"github.com/ledgercheck/ledgercheck/internal/locate"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// Installed runs on what the install of f made the lint rules that read conditions, where f's
// text does not show them: the policies fp created or changed (by an EXECUTE of SQL built at run
// time, or altered by one after the text created them) and the SQL and PL/pgSQL functions of
// fresh (the catalog after the install) they may call, written back as SQL from the catalog
// (parsed, never sent to a server) and read as a file of its own
// ([lint.InstalledDeploymentReads]). Each finding points at the EXECUTE of SQL built at run time
// that names the policy, else at the first one ([locate.Index.BuiltAtRunTime]), else at the
// statement that names the policy, else at f's first line.
func Installed(f *pgsql.File, cfg lint.Config, fp *introspect.Footprint, fresh *introspect.Snapshot, ix *locate.Index) []finding.Finding {
	if f == nil || fp == nil || fresh == nil {
		return nil
	}
	changed := map[string]bool{}
	for _, o := range fp.Created {
		if o.Kind == introspect.KindPolicy {
			changed[o.Object] = true
		}
	}
	for _, c := range fp.Changed {
		if c.Kind == introspect.KindPolicy {
			changed[c.Object] = true
		}
	}
	var policies strings.Builder
	for _, p := range fresh.Policies {
		if changed[pgsql.QuoteIdent(p.Name)+" on "+p.Table] {
			policies.WriteString(policySQL(p))
		}
	}
	if policies.Len() == 0 {
		return nil
	}
	// The functions the policies may call, and those these may call: each whose name appears in
	// the text read so far, until no more do.
	var functions strings.Builder
	sqls := make([]string, len(fresh.Functions)) // "" for one lint cannot read, or already taken
	for i, fn := range fresh.Functions {
		sqls[i] = functionSQL(fn)
	}
	text := policies.String()
	for more := true; more; {
		more = false
		for i, fn := range fresh.Functions {
			if sqls[i] != "" && strings.Contains(text, fn.Name) {
				functions.WriteString(sqls[i])
				sqls[i], more = "", true
				text += fn.Body
			}
		}
	}
	installed, err := pgsql.Parse("installed", []byte(functions.String()+policies.String()))
	if err != nil { // a body the parser cannot read: the policies alone
		if installed, err = pgsql.Parse("installed", []byte(policies.String())); err != nil {
			return nil
		}
	}
	at := func(o pgsql.Object) finding.Position {
		object := pgsql.QuoteIdent(o.Name.Name) + " on " + o.Table.String()
		if pos, ok := ix.BuiltAtRunTime(object); ok {
			return pos
		}
		if pos, ok := ix.Statement(introspect.KindPolicy, object, ""); ok {
			return pos
		}
		return finding.Position{File: f.Name, Line: 1, Col: 1}
	}
	return lint.InstalledDeploymentReads(f, cfg, installed, at)
}

// policySQL writes p back as CREATE POLICY.
func policySQL(p introspect.Policy) string {
	as := "PERMISSIVE"
	if !p.Permissive {
		as = "RESTRICTIVE"
	}
	roles := make([]string, len(p.Roles))
	for i, r := range p.Roles {
		roles[i] = pgsql.QuoteIdent(r)
		if strings.EqualFold(r, "public") {
			roles[i] = "PUBLIC"
		}
	}
	if len(roles) == 0 {
		roles = []string{"PUBLIC"}
	}
	s := fmt.Sprintf("CREATE POLICY %s ON %s AS %s FOR %s TO %s", pgsql.QuoteIdent(p.Name), p.Table, as, strings.ToUpper(p.Command), strings.Join(roles, ", "))
	if p.Using != "" {
		s += " USING (" + p.Using + ")"
	}
	if p.WithCheck != "" {
		s += " WITH CHECK (" + p.WithCheck + ")"
	}
	return s + ";\n"
}

// functionSQL writes fn back as CREATE FUNCTION (or PROCEDURE) when it is SQL or PL/pgSQL, the
// bodies lint reads; "" otherwise.
func functionSQL(fn introspect.Function) string {
	if fn.Language != "sql" && fn.Language != "plpgsql" || fn.Kind != "function" && fn.Kind != "procedure" {
		return ""
	}
	head := fmt.Sprintf("CREATE FUNCTION %s.%s(%s) RETURNS %s", pgsql.QuoteIdent(fn.Schema), pgsql.QuoteIdent(fn.Name), fn.Arguments, fn.Result)
	if fn.Kind == "procedure" {
		head = fmt.Sprintf("CREATE PROCEDURE %s.%s(%s)", pgsql.QuoteIdent(fn.Schema), pgsql.QuoteIdent(fn.Name), fn.Arguments)
	}
	if strings.HasPrefix(strings.TrimSpace(fn.Body), "BEGIN ATOMIC") {
		return head + " LANGUAGE sql " + fn.Body + ";\n"
	}
	return head + " LANGUAGE " + fn.Language + " AS " + dollarQuote(fn.Body) + ";\n"
}

// dollarQuote quotes s with a dollar tag it does not contain.
func dollarQuote(s string) string {
	tag := "$lc$"
	for i := 0; strings.Contains(s, tag); i++ {
		tag = fmt.Sprintf("$lc%d$", i)
	}
	return tag + s + tag
}
