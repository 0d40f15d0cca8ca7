package observe

import (
	"regexp"
	"slices"
	"strings"
)

// Where ownership can be seen, the observation gives a relation rows owned by user A, by user B
// and by someone else, and acts on each: a column is an owner column when a foreign key ties it
// to auth.users, or when a policy compares it with the requesting user's id (auth.uid(), the
// JWT's sub). Reading the policies' text here only chooses which rows to make and which values
// a client could send; what the personas can do is observed.

// userID matches what a policy reads the requesting user's id from.
const userID = `(?:auth\.(?:uid|jwt)\(\)|current_setting\('request\.jwt\.claim)`

// ownerPatterns returns the patterns of a comparison of column col with the user's id, either
// way round ("owner_id = auth.uid()", "auth.uid() = owner_id", "m.user_id = ( SELECT
// auth.uid() AS uid)", "((auth.jwt() ->> 'sub'::text))::uuid = user_id").
func ownerPatterns(col string) []*regexp.Regexp {
	c := regexp.QuoteMeta(col)
	return []*regexp.Regexp{
		regexp.MustCompile(`(?:^|[(\s])(?:\w+\.)?"?` + c + `"?\s*=\s*[(\s]*(?:SELECT\s+)?` + userID),
		regexp.MustCompile(userID + `[^=]{0,80}?=\s*[(\s]*(?:\w+\.)?"?` + c + `"?(?:$|[)\s:])`),
	}
}

// comparesUser reports whether expr compares column col with the requesting user's id.
func comparesUser(expr, col string) bool {
	if !strings.Contains(expr, col) {
		return false
	}
	for _, re := range ownerPatterns(col) {
		if re.MatchString(expr) {
			return true
		}
	}
	return false
}

// ownerType reports whether a column of type typ can hold a user's id.
func ownerType(typ string) bool {
	switch typ {
	case "uuid", "text", "character varying":
		return true
	}
	return strings.HasPrefix(typ, "character varying(")
}

// findOwners sets each relation's owner columns: its foreign keys to auth.users, and the
// columns a policy (its own, or one of another relation that reads it: a membership table)
// compares with the user's id.
func (s *Surface) findOwners() {
	for _, r := range s.Relations {
		for _, fk := range r.ForeignKeys {
			if fk.References == "auth.users" && len(fk.Columns) == 1 {
				r.addOwner(fk.Columns[0], "")
			}
		}
	}
	for _, r := range s.Relations {
		for _, p := range r.Policies {
			expr := p.Using + "\n" + p.Check
			for _, ident := range append([]string{r.Ident}, p.Reads...) {
				m := s.Relation(ident)
				if m == nil {
					continue
				}
				for _, c := range m.Columns {
					if ownerType(c.Type) && comparesUser(expr, c.Name) {
						m.addOwner(c.Name, p.Name)
						if m == r {
							r.ownerTestingPolicy = true
						}
					}
				}
			}
		}
	}
}

// addOwner records col as an owner column, tested by policy (when not "").
func (r *Relation) addOwner(col, policy string) {
	if !slices.Contains(r.Owners, col) {
		r.Owners = append(r.Owners, col)
	}
	if policy != "" && !slices.Contains(r.ownerTestedBy[col], policy) {
		r.ownerTestedBy[col] = append(r.ownerTestedBy[col], policy)
	}
}

// Column returns the column named name, or nil.
func (r *Relation) Column(name string) *Column {
	for i := range r.Columns {
		if r.Columns[i].Name == name {
			return &r.Columns[i]
		}
	}
	return nil
}

// can reports whether the API role holds column privilege priv on col.
func (c *Column) can(role, priv string) bool { return slices.Contains(c.Priv[role], priv) }

// columns returns the names of the columns role holds priv on.
func (r *Relation) columns(role, priv string) []string {
	var out []string
	for _, c := range r.Columns {
		if c.can(role, priv) {
			out = append(out, c.Name)
		}
	}
	return out
}

// owner returns the first owner column role may read (to classify the rows it sees), or "".
func (r *Relation) owner(role string) string {
	for _, o := range r.Owners {
		if c := r.Column(o); c != nil && c.can(role, "SELECT") {
			return o
		}
	}
	return ""
}

// memberships are the relations the policies of r read, besides r, that have owner columns: a
// user who adds himself there may see more of r.
func (s *Surface) memberships(r *Relation) []*Relation {
	var out []*Relation
	for _, p := range r.Policies {
		for _, ident := range p.Reads {
			if m := s.Relation(ident); m != nil && m != r && len(m.Owners) > 0 && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// applies reports whether the policy applies to the API role for command cmd.
func (p Policy) applies(role, cmd string) bool {
	if p.Cmd != cmd && p.Cmd != "ALL" {
		return false
	}
	return slices.Contains(p.AppliesTo, role)
}

// denies reports whether PostgreSQL itself refuses role's command cmd on r, whatever the
// request: row level security is on and no permissive policy applies to the role for the
// command (the default deny), and no rule or statement trigger could run on the way (an UPDATE
// or DELETE of no row still fires those, and a rule may rewrite an INSERT). A request of a
// persona that holds no privilege is not made either; both are counted, not made.
func (r *Relation) denies(role, cmd string) bool {
	if r.Kind == "view" {
		return r.viewDenies(role, cmd)
	}
	if !r.RLS || r.Kind != "table" && r.Kind != "partitioned table" || len(r.permissive(role, cmd)) > 0 {
		return false
	}
	return cmd == "SELECT" || len(r.Rules) == 0 && !r.StatementTriggers
}

// The commands pg_relation_is_updatable reports (1 << CmdType).
const (
	updatableUpdate = 1 << 2
	updatableInsert = 1 << 3
	updatableDelete = 1 << 4
)

// viewDenies reports whether PostgreSQL refuses role's cmd on view r whatever the request: a
// write to a view that takes no such write (not auto-updatable, no INSTEAD trigger or rule), or
// a read of a security_invoker view that calls no function of the migration's and every table
// of which refuses the role by default deny.
func (r *Relation) viewDenies(role, cmd string) bool {
	switch cmd {
	case "INSERT":
		return r.updatable&updatableInsert == 0
	case "UPDATE":
		return r.updatable&updatableUpdate == 0
	case "DELETE":
		return r.updatable&updatableDelete == 0
	case "SELECT":
		return r.invoker && !r.calls && len(r.basesDeny) > 0 && r.basesDeny[role]
	}
	return false
}

// permissive returns the permissive policies of r that apply to role for cmd.
func (r *Relation) permissive(role, cmd string) []Policy {
	var out []Policy
	for _, p := range r.Policies {
		if p.Permissive && p.applies(role, cmd) {
			out = append(out, p)
		}
	}
	return out
}

// ownerOnly reports whether r's rows are meant to be their owner's: a permissive policy of
// cmd for authenticated compares an owner column with the user's id, and every other such
// policy does too.
func (r *Relation) ownerOnly(cmd string) bool {
	ps := r.permissive("authenticated", cmd)
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		tests := false
		for _, o := range r.Owners {
			if slices.Contains(r.ownerTestedBy[o], p.Name) {
				tests = true
			}
		}
		if !tests {
			return false
		}
	}
	return true
}

// fillsFromMetadata reports whether a relation of the surface fills a column of a new row with
// what the user's metadata holds (see observer.metadataDefaults).
func (s *Surface) fillsFromMetadata() bool {
	for _, r := range s.Relations {
		if len(r.metadataKeys()) > 0 {
			return true
		}
	}
	return false
}

// policyText is r's policies' USING expressions and the functions they call, one after the
// other: the text whose names and literals a promotion reads.
func (r *Relation) policyText() string {
	var text string
	for _, pol := range r.Policies {
		text += pol.Using + "\n" + pol.Calls + "\n"
	}
	return text
}

// metadataKeys are the keys of user_metadata that fill a column of a new row of r: a column's
// default (role DEFAULT coalesce(auth.jwt() -> 'user_metadata' ->> 'role', 'member')), or a
// trigger's function (NEW.role := ... ->> 'role'), which reads the claim or auth.users' column.
// Only the usual spellings name a key here (->> 'k', #>> '{...}').
func (r *Relation) metadataKeys() []string {
	var keys []string
	add := func(text string) {
		if !strings.Contains(text, metadata) && !strings.Contains(text, metadataColumn) {
			return
		}
		for _, k := range candidateKeys(text, nil, metadataKey, false) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	for _, c := range r.Columns {
		add(c.Default)
	}
	for _, src := range r.triggerSources {
		add(src)
	}
	return keys
}

// ownershipIntended reports whether some policy of r ties rows to their owner.
func (r *Relation) ownershipIntended() bool { return r.ownerTestingPolicy }

var (
	// The JWT's user_metadata claim, or the column of auth.users it comes from, which GoTrue
	// writes when a user updates his own metadata (supabase.auth.updateUser({data})).
	metadataKey = regexp.MustCompile(`(?:user_metadata'(?:::text)?|raw_user_meta_data)\)*\s*(?:->>?|#>>?)\s*'([^']+)'`)
	headerKey   = regexp.MustCompile(`request\.headers'(?:::text)?(?:,\s*true)?\)*(?:::jsonb?)?\)*\s*->>?\s*'([^']+)'`)
	cookieKey   = regexp.MustCompile(`request\.cookies'(?:::text)?(?:,\s*true)?\)*(?:::jsonb?)?\)*\s*->>?\s*'([^']+)'`)
	literal     = regexp.MustCompile(`'((?:[^']|'')*)'`)
	// jsonQuoted is a double-quoted string in a JSON document or a JSON path, as PostgreSQL prints
	// them ('$."user_metadata"?(@."desk" == "editors")').
	jsonQuoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// The kinds of value a client controls: a key of the user's user_metadata (every user edits
// his own), a request header and a cookie (any client sends any), and a second factor: a user
// who enrols one for himself (an authenticator app's TOTP, which a Supabase project offers
// unless it is turned off) and verifies it gets a JWT whose aal is aal2 and whose amr lists
// totp. Supabase's guide to MFA has policies ask for aal2 AS RESTRICTIVE, in addition to what
// the others allow; a permissive policy that asks for it alone lets in every user who enrols
// (clientValueFacts: where the rows' owners show, only other users' rows count).
const (
	metadata     = "user_metadata"
	header       = "header"
	cookie       = "cookie"
	secondFactor = "second factor"
)

// factorWords are the words of a policy's literals that name the second factor's claims or
// their values: a policy that reads the JWT and says one of them is read again with one.
var factorWords = []string{"aal", "aal2", "amr", "totp"}

// metadataColumn is the column of auth.users that holds a user's user_metadata: GoTrue writes
// it when the user updates his own (supabase.auth.updateUser({data})), and the next JWT
// carries it. A policy that reads it trusts the client as much as one that reads the claim.
const metadataColumn = "raw_user_meta_data"

// controlled is a value a client controls that a policy reads.
type controlled struct {
	Kind   string // metadata, header, cookie or secondFactor
	Key    string // the key, or the header's or cookie's name
	Values []string
	Policy string // the policy whose text proposed the key, quoted as an identifier
}

// clientValues returns what r's policies (and the functions they call) read of what a client
// controls, each with the values to try: the expressions' literals, then samples (values of
// rows of r and of the relations its policies read: [observer.sampleValues]).
//
// A policy reads user_metadata (or the request's headers, or its cookies) when its text names
// it; the keys to try are not read from how the text reaches them, which has many spellings
// (->> 'k', #>> '{user_metadata,k}', jsonb_extract_path_text(..., 'k'), a subscript, a contained
// document, a JSON path, a helper whose argument is the key): they are the key the usual
// spelling names first, then every word of the policy's literals (each literal, the elements of
// an array, the keys and strings of a JSON document or path), the same words that are tried as
// values.
// The same goes for plan, the text of the plans PostgreSQL made of reads of r (readPlans), where
// constants are folded and SQL helpers inlined: a key computed from constants ('te' || 'am')
// is tried too; one computed from what a request reads is not (docs/reference/security.md).
func (r *Relation) clientValues(samples []string, plan string) []controlled {
	var out []controlled
	add := func(kind, key string, words []string, policy string) {
		c := controlled{Kind: kind, Key: key, Policy: quoteIdentName(policy)}
		for _, v := range words {
			if v == key || v == "" || strings.Contains(v, "user_metadata") || strings.Contains(v, "request.") || v == "sub" || v == "role" && kind == metadata && key != "role" {
				continue
			}
			if !slices.Contains(c.Values, v) {
				c.Values = append(c.Values, v)
			}
		}
		for _, v := range samples {
			if v != "" && !slices.Contains(c.Values, v) {
				c.Values = append(c.Values, v)
			}
		}
		if len(c.Values) > maxClientValues {
			c.Values = c.Values[:maxClientValues]
		}
		out = append(out, c)
	}
	sources := r.Policies
	if plan != "" {
		// The plan, with the functions every policy calls (a helper the plan calls but did not
		// inline), proposes keys for the first policy that reads the request.
		var calls []string
		for _, p := range r.Policies {
			calls = append(calls, p.Calls)
		}
		for _, p := range r.Policies {
			if p.readsRequest() {
				sources = append(slices.Clone(r.Policies), Policy{Name: p.Name, Using: plan, Calls: strings.Join(calls, "\n")})
				break
			}
		}
	}
	for _, p := range sources {
		text := p.Using + "\n" + p.Check + "\n" + p.Calls
		words := literalWords(text)
		for _, src := range []struct {
			kind  string
			names []string // what a text names when it reads it
			usual *regexp.Regexp
		}{{metadata, []string{"user_metadata", metadataColumn}, metadataKey}, {header, []string{"request.headers"}, headerKey}, {cookie, []string{"request.cookies"}, cookieKey}} {
			if !slices.ContainsFunc(src.names, func(n string) bool { return strings.Contains(text, n) }) {
				continue
			}
			n := 0
			for _, k := range candidateKeys(text, words, src.usual, src.kind == header) {
				if n < maxClientKeys && !slices.ContainsFunc(out, func(c controlled) bool { return c.Kind == src.kind && c.Key == k }) {
					add(src.kind, k, words, p.Name)
					n++
				}
			}
		}
		// A restrictive policy only narrows what the permissive ones allow: one that asks for
		// aal2 (as Supabase's guide has it) opens nothing, and is not tried.
		if p.Permissive && strings.Contains(text, "jwt") && slices.ContainsFunc(words, func(w string) bool { return slices.Contains(factorWords, w) }) &&
			!slices.ContainsFunc(out, func(c controlled) bool { return c.Kind == secondFactor }) {
			out = append(out, controlled{Kind: secondFactor, Key: "aal", Values: []string{"aal2"}, Policy: quoteIdentName(p.Name)})
		}
	}
	return out
}

// literalWords returns the words of text's string literals, in order, each once: each literal
// as it is, the elements of an array literal ('{user_metadata,staff}'), and the keys and strings
// of a JSON document or path ('{"user_metadata": {"reviewer": "yes"}}', '"admin"',
// '$."user_metadata"?(@."desk" == "editors")').
func literalWords(text string) []string {
	var out []string
	add := func(w string) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, m := range literal.FindAllStringSubmatch(text, -1) {
		v := strings.ReplaceAll(m[1], "''", "'")
		add(v)
		if inner, ok := strings.CutPrefix(v, "{"); ok && !strings.Contains(v, "\"") {
			for _, e := range strings.Split(strings.TrimSuffix(inner, "}"), ",") {
				add(strings.TrimSpace(e))
			}
		}
		for _, q := range jsonQuoted.FindAllStringSubmatch(v, -1) {
			add(strings.ReplaceAll(q[1], `\"`, `"`))
		}
	}
	return out
}

// candidateKeys are the keys of user_metadata or cookies (header: the headers' names,
// lower-cased) to try for text: the key the usual spelling (usual) names, then each of its
// literals' words that may be one.
func candidateKeys(text string, words []string, usual *regexp.Regexp, header bool) []string {
	var keys []string
	for _, m := range usual.FindAllStringSubmatch(text, -1) {
		keys = append(keys, m[1])
	}
	for _, w := range words {
		if candidateKey(w, header) {
			keys = append(keys, w)
		}
	}
	if header {
		for i, k := range keys {
			keys[i] = strings.ToLower(k)
		}
	}
	return keys
}

// candidateKey reports whether w may be a key worth trying (a header's name when header): a
// word, not the name of what holds it or a setting.
func candidateKey(w string, header bool) bool {
	if w == "" || len(w) > 64 || strings.ContainsAny(w, " \t\n{}()[]$@?=:,'\"") || strings.Contains(w, "user_metadata") || strings.HasPrefix(w, "request.") {
		return false
	}
	return !header || !strings.Contains(w, ".")
}

// maxClientKeys bounds the keys tried for one policy and one kind of client-controlled value.
const maxClientKeys = 6

// maxClientValues bounds the values tried for one client-controlled key.
const maxClientValues = 6

// valueSources are the relations whose rows may hold the value a policy of r compares with a
// client-controlled one: r, then the other tables its policies read (a workspace's slug in the
// workspaces table), each once. Only tables: the reader that samples them (BYPASSRLS, a
// built-in type's columns only) evaluates nothing of the file's there, where a view's query, or
// a foreign table's wrapper, would run the file's code with the reader's rights.
func (o *observer) valueSources(r *Relation) []*Relation {
	out := []*Relation{r}
	for _, p := range r.Policies {
		for _, ident := range p.Reads {
			if x := o.s.Relation(ident); x != nil && x.table() && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// sampleValues are the values to try from rows: the last sampled row of each of r's
// [observer.valueSources], by column.
func (o *observer) sampleValues(r *Relation) []string {
	var out []string
	for _, src := range o.valueSources(r) {
		rows := o.refs[displayOf(src)]
		if len(rows) == 0 {
			continue
		}
		for _, col := range src.Columns {
			if v, ok := rows[len(rows)-1][col.Name]; ok {
				out = append(out, v)
			}
		}
	}
	return out
}
