package audit

import (
	"fmt"
	"strings"
)

// accessRow is the "api-access" row of audit.sql: one policy that applies to an API role for a
// command the role holds the privilege for, on a table with row level security.
const accessRow = "api-access"

// policyRef is one policy of an access row.
type policyRef struct {
	cmd, name, using, check string
	permissive              bool
}

// effectiveAccess turns the access rows into api-reads-every-row and api-writes-every-row rows:
// a role reads (writes) every row of a table when, for the command, a permissive policy that is
// always true for that role lets it, and no restrictive one narrows it (splinter's 0024 cases,
// extended to conditions every request of the role meets). A write policy that is literally
// true is left to policy-always-true (0024), which reports that fact. The other rows are
// returned unchanged.
func effectiveAccess(rows []row) []row {
	type key struct{ object, role, cmd string }
	type group struct {
		first    row
		opener   *policyRef
		narrowed bool
	}
	var out []row
	var order []key
	groups := map[key]*group{}
	for _, r := range rows {
		if r.Rule != accessRow {
			out = append(out, r)
			continue
		}
		p, ok := parsePolicy(r.Detail)
		if !ok {
			continue
		}
		k := key{r.Object, r.Role, p.cmd}
		g := groups[k]
		if g == nil {
			g = &group{first: r}
			groups[k] = g
			order = append(order, k)
		}
		expr := p.expression()
		switch {
		case !p.permissive:
			if !alwaysTrue(expr, r.Role) {
				g.narrowed = true
			}
		case g.opener == nil && alwaysTrue(expr, r.Role):
			g.opener = &p
		}
	}
	writes := map[[2]string][]string{} // object, role -> commands
	var writeOrder [][2]string
	writeBy := map[[2]string]row{}
	for _, k := range order {
		g := groups[k]
		if g.opener == nil || g.narrowed {
			continue
		}
		r := g.first
		if k.cmd == "SELECT" {
			r.Rule, r.Detail = RuleAPIReadsEveryRow, g.opener.describe()
			out = append(out, r)
			continue
		}
		if literallyTrue(g.opener.expression()) {
			continue // policy-always-true (0024) reports it
		}
		wk := [2]string{k.object, k.role}
		if _, ok := writes[wk]; !ok {
			writeOrder = append(writeOrder, wk)
			r.Rule, r.Detail = RuleAPIWritesEveryRow, g.opener.describe()
			writeBy[wk] = r
		}
		writes[wk] = append(writes[wk], k.cmd)
	}
	for _, wk := range writeOrder {
		r := writeBy[wk]
		r.Detail = strings.Join(writes[wk], ", ") + "\x1f" + r.Detail
		out = append(out, r)
	}
	return out
}

// parsePolicy reads an access row's detail: command, permissive or restrictive, name, USING,
// WITH CHECK.
func parsePolicy(detail string) (policyRef, bool) {
	f := strings.Split(detail, "\x1f")
	if len(f) != 5 {
		return policyRef{}, false
	}
	return policyRef{cmd: f[0], permissive: f[1] == "permissive", name: f[2], using: f[3], check: f[4]}, true
}

// expression is what decides which rows the policy lets through for its command: USING, except
// for INSERT, where it is WITH CHECK (USING when a FOR ALL policy has none).
func (p policyRef) expression() string {
	if p.cmd == "INSERT" && p.check != "" {
		return p.check
	}
	if p.cmd == "INSERT" && p.using == "" {
		return ""
	}
	return p.using
}

// describe is the policy's name and, after U+001F, its condition, for a finding's message and
// detail.
func (p policyRef) describe() string {
	clause := "USING"
	if p.cmd == "INSERT" && (p.check != "" || p.using == "") {
		clause = "WITH CHECK"
	}
	e := p.expression()
	if e == "" {
		return p.name + "\x1f" + fmt.Sprintf("no %s: every row", clause)
	}
	return p.name + "\x1f" + clause + " " + e
}

// squeeze drops white space and parentheses: pg_get_expr's output of the conditions below,
// written with or without a scalar subquery, compares as one string.
func squeeze(expr string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '(', ')':
			return -1
		}
		return r
	}, expr)
}

// literallyTrue reports whether expr lets every row through for every role: absent, true, 1 = 1.
func literallyTrue(expr string) bool {
	switch squeeze(expr) {
	case "", "true", "1=1":
		return true
	}
	return false
}

// alwaysTrue reports whether every request of role meets expr: a literal truth, the role's own
// name read back from the JWT (auth.role(), auth.jwt() ->> 'role'), or, for authenticated, a
// signed-in user (auth.uid() IS NOT NULL).
func alwaysTrue(expr, role string) bool {
	if literallyTrue(expr) {
		return true
	}
	s := squeeze(expr)
	lit := "'" + role + "'::text"
	for _, read := range []string{"auth.role", "SELECTauth.roleASrole", "auth.jwt->>'role'::text", "SELECTauth.jwtASjwt->>'role'::text"} {
		if s == read+"="+lit || s == lit+"="+read {
			return true
		}
	}
	if role == "authenticated" {
		switch s {
		case "auth.uidISNOTNULL", "SELECTauth.uidASuidISNOTNULL":
			return true
		}
	}
	return false
}
