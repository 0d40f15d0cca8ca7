package introspect

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Fact is one attribute of one object: the unit two snapshots are compared by. Facts are keyed
// by (Kind, Object, Attr); a fact missing on one side is the same as an empty Value.
type Fact struct {
	// Kind is the object kind: schema, extension, type, attribute (of a composite type), table,
	// column, constraint, index, view, sequence, function, trigger, policy, default privileges,
	// role, rule, operator, cast, collation, statistics, text search configuration, event
	// trigger, publication.
	// Finer kinds (partitioned table, materialized view, procedure, enum, ...) are the "kind"
	// attribute.
	Kind string `json:"kind"`
	// Object is the object's stable identity (see the package documentation).
	Object string `json:"object"`
	// Attr names the attribute: owner, rls, force_rls, acl:<grantee>, config:<setting>, body, ...
	Attr string `json:"attr"`
	// Value is what comparisons use. For a function body it is the normalized body.
	Value string `json:"value"`
	// Display, when set, is the text to show instead of Value (the raw body). Two facts with the
	// same Value and different Display differ only cosmetically.
	Display string `json:"display,omitempty"`
}

// Key identifies a fact across snapshots.
func (f Fact) Key() FactKey { return FactKey{f.Kind, f.Object, f.Attr} }

// Ref is the object the fact belongs to.
func (f Fact) Ref() ObjectRef { return ObjectRef{f.Kind, f.Object} }

// Shown is the text to show for the fact: Display when set, else Value.
func (f Fact) Shown() string {
	if f.Display != "" {
		return f.Display
	}
	return f.Value
}

// FactKey is the (Kind, Object, Attr) key of a [Fact].
type FactKey struct{ Kind, Object, Attr string }

// ObjectRef identifies an object: its kind and identity.
type ObjectRef struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
}

func (r ObjectRef) String() string { return r.Kind + " " + r.Object }

// Object kinds used in facts.
const (
	KindSchema            = "schema"
	KindExtension         = "extension"
	KindType              = "type"
	KindAttribute         = "attribute"
	KindTable             = "table"
	KindColumn            = "column"
	KindConstraint        = "constraint"
	KindIndex             = "index"
	KindView              = "view"
	KindSequence          = "sequence"
	KindFunction          = "function"
	KindTrigger           = "trigger"
	KindPolicy            = "policy"
	KindDefaultPrivileges = "default privileges"
	KindRole              = "role"
	KindRule              = "rule"
	KindOperator          = "operator"
	KindCast              = "cast"
	KindCollation         = "collation"
	KindStatistics        = "statistics"
	KindTextSearchConfig  = "text search configuration"
	KindEventTrigger      = "event trigger"
	KindPublication       = "publication"
)

// Facts flattens s into facts sorted by (Kind, Object, Attr). Every attribute of every object
// in the snapshot is a fact, so a comparison of facts misses nothing the snapshot holds.
func (s *Snapshot) Facts() []Fact {
	var fb factBuilder
	for _, x := range s.Schemas {
		o := fb.obj(KindSchema, ident(x.Name))
		o.add("owner", x.Owner)
		o.acl(x.ACL)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Extensions {
		o := fb.obj(KindExtension, ident(x.Name))
		o.add("schema", x.Schema)
		o.add("version", x.Version)
	}
	for _, x := range s.Types {
		id := qualify(x.Schema, x.Name)
		o := fb.obj(KindType, id)
		o.add("kind", x.Kind)
		o.add("owner", x.Owner)
		o.acl(x.ACL)
		o.add("comment", x.Comment)
		if x.Kind == "enum" {
			o.add("labels", strings.Join(x.Labels, ", "))
		}
		if x.BaseType != "" {
			o.add("base_type", x.BaseType)
		}
		if x.Kind == "domain" {
			o.add("not_null", strconv.FormatBool(x.NotNull))
			o.add("default", x.Default)
			o.add("collation", x.Collation)
		}
		for _, c := range x.Constraints {
			fb.constraint(c, id)
		}
		for _, c := range x.Attributes {
			fb.column(KindAttribute, c, id)
		}
	}
	for _, x := range s.Tables {
		id := qualify(x.Schema, x.Name)
		o := fb.obj(KindTable, id)
		o.add("kind", x.Kind)
		o.add("persistence", x.Persistence)
		o.add("owner", x.Owner)
		o.add("rls", strconv.FormatBool(x.RLS))
		o.add("force_rls", strconv.FormatBool(x.ForceRLS))
		o.add("replica_identity", x.ReplicaIdentity)
		o.add("options", strings.Join(x.Options, ", "))
		o.add("partition_key", x.PartitionKey)
		o.add("partition_of", x.PartitionOf)
		o.add("partition_bound", x.PartitionBound)
		o.add("inherits", strings.Join(x.Inherits, ", "))
		o.acl(x.ACL)
		o.add("comment", x.Comment)
		for _, c := range x.Columns {
			fb.column(KindColumn, c, id)
		}
		for _, c := range x.Constraints {
			fb.constraint(c, id)
		}
		for _, ix := range x.Indexes {
			fb.index(ix, id)
		}
	}
	for _, x := range s.Views {
		id := qualify(x.Schema, x.Name)
		o := fb.obj(KindView, id)
		o.add("kind", x.Kind)
		o.add("owner", x.Owner)
		o.addDisplay("definition", x.DefinitionNormalized, x.Definition)
		o.add("options", strings.Join(x.Options, ", "))
		if x.Kind == "materialized view" {
			o.add("populated", strconv.FormatBool(x.Populated))
		}
		o.acl(x.ACL)
		o.add("comment", x.Comment)
		for _, c := range x.Columns {
			fb.column(KindColumn, c, id)
		}
		for _, ix := range x.Indexes {
			fb.index(ix, id)
		}
	}
	for _, x := range s.Sequences {
		o := fb.obj(KindSequence, qualify(x.Schema, x.Name))
		o.add("type", x.Type)
		o.add("start", strconv.FormatInt(x.Start, 10))
		o.add("increment", strconv.FormatInt(x.Increment, 10))
		o.add("min", strconv.FormatInt(x.Min, 10))
		o.add("max", strconv.FormatInt(x.Max, 10))
		o.add("cache", strconv.FormatInt(x.Cache, 10))
		o.add("cycle", strconv.FormatBool(x.Cycle))
		o.add("owned_by", x.OwnedBy)
		o.add("owner", x.Owner)
		o.acl(x.ACL)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Functions {
		o := fb.obj(KindFunction, x.Identity())
		o.add("kind", x.Kind)
		o.add("arguments", x.Arguments)
		o.add("result", x.Result)
		o.add("language", x.Language)
		o.add("volatility", x.Volatility)
		o.add("strict", strconv.FormatBool(x.Strict))
		o.add("security_definer", strconv.FormatBool(x.SecurityDefiner))
		o.add("leakproof", strconv.FormatBool(x.Leakproof))
		o.add("parallel", x.Parallel)
		o.add("cost", strconv.FormatFloat(x.Cost, 'g', -1, 64))
		o.add("rows", strconv.FormatFloat(x.Rows, 'g', -1, 64))
		for _, c := range x.Config {
			k, v, _ := strings.Cut(c, "=")
			o.add("config:"+k, v)
		}
		o.add("owner", x.Owner)
		o.acl(x.ACL)
		o.add("comment", x.Comment)
		o.addDisplay("body", x.BodyNormalized, x.Body)
		if a := x.Aggregate; a != nil {
			o.add("aggregate_kind", a.Kind)
			o.add("direct_args", strconv.Itoa(a.DirectArgs))
			o.add("transition", a.Transition)
			o.add("state_type", a.StateType)
			o.add("state_space", strconv.Itoa(a.StateSpace))
			o.add("initial_condition", a.InitialCondition)
			o.add("final", a.Final)
			o.add("final_extra", strconv.FormatBool(a.FinalExtra))
			o.add("final_modify", a.FinalModify)
			o.add("combine", a.Combine)
			o.add("serial", a.Serial)
			o.add("deserial", a.Deserial)
			o.add("sort_operator", a.SortOperator)
			o.add("moving_transition", a.MovingTransition)
			o.add("moving_inverse", a.MovingInverse)
			o.add("moving_final", a.MovingFinal)
			o.add("moving_state_type", a.MovingStateType)
			o.add("moving_initial_condition", a.MovingInitialCondition)
		}
	}
	for _, x := range s.Triggers {
		o := fb.obj(KindTrigger, ident(x.Name)+" on "+x.Table)
		o.add("definition", x.Definition)
		o.add("enabled", x.Enabled)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Policies {
		o := fb.obj(KindPolicy, ident(x.Name)+" on "+x.Table)
		o.add("permissive", strconv.FormatBool(x.Permissive))
		o.add("command", x.Command)
		o.add("roles", strings.Join(x.Roles, ", "))
		o.add("using", x.Using)
		o.add("with_check", x.WithCheck)
		o.add("comment", x.Comment)
	}
	for _, x := range s.DefaultPrivileges {
		o := fb.obj(KindDefaultPrivileges, x.Identity())
		o.add("object_type", x.ObjectType)
		o.acl(x.ACL)
	}
	for _, x := range s.Rules {
		o := fb.obj(KindRule, ident(x.Name)+" on "+x.Table)
		o.add("definition", x.Definition)
		o.add("enabled", x.Enabled)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Operators {
		o := fb.obj(KindOperator, x.Identity())
		o.add("result", x.Result)
		o.add("function", x.Function)
		o.add("commutator", x.Commutator)
		o.add("negator", x.Negator)
		o.add("restrict", x.Restrict)
		o.add("join", x.Join)
		o.add("hashes", strconv.FormatBool(x.Hashes))
		o.add("merges", strconv.FormatBool(x.Merges))
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Casts {
		o := fb.obj(KindCast, x.Identity())
		o.add("function", x.Function)
		o.add("context", x.Context)
		o.add("method", x.Method)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Collations {
		o := fb.obj(KindCollation, qualify(x.Schema, x.Name))
		o.add("provider", x.Provider)
		o.add("locale", x.Locale)
		o.add("lc_collate", x.LCCollate)
		o.add("lc_ctype", x.LCCtype)
		o.add("rules", x.Rules)
		o.add("deterministic", strconv.FormatBool(x.Deterministic))
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Statistics {
		o := fb.obj(KindStatistics, qualify(x.Schema, x.Name))
		o.add("table", x.Table)
		o.add("definition", x.Definition)
		o.add("target", x.Target)
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.TextSearchConfigs {
		o := fb.obj(KindTextSearchConfig, qualify(x.Schema, x.Name))
		o.add("parser", x.Parser)
		for _, m := range x.Mapping {
			o.add("mapping:"+m.Token, m.Dictionaries)
		}
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.EventTriggers {
		o := fb.obj(KindEventTrigger, ident(x.Name))
		o.add("event", x.Event)
		o.add("tags", strings.Join(x.Tags, ", "))
		o.add("function", x.Function)
		o.add("enabled", x.Enabled)
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Publications {
		o := fb.obj(KindPublication, ident(x.Name))
		o.add("all_tables", strconv.FormatBool(x.AllTables))
		o.add("publish", x.Publish)
		o.add("via_root", strconv.FormatBool(x.ViaRoot))
		for _, t := range x.Tables {
			o.add("table:"+t.Table, t.Published())
		}
		for _, n := range x.Schemas {
			o.add("schema:"+ident(n), "all tables")
		}
		o.add("owner", x.Owner)
		o.add("comment", x.Comment)
	}
	for _, x := range s.Roles {
		o := fb.obj(KindRole, ident(x.Name))
		o.add("superuser", strconv.FormatBool(x.Superuser))
		o.add("inherit", strconv.FormatBool(x.Inherit))
		o.add("createrole", strconv.FormatBool(x.CreateRole))
		o.add("createdb", strconv.FormatBool(x.CreateDB))
		o.add("login", strconv.FormatBool(x.Login))
		o.add("replication", strconv.FormatBool(x.Replication))
		o.add("bypassrls", strconv.FormatBool(x.BypassRLS))
		o.add("connection_limit", strconv.Itoa(x.ConnectionLimit))
		o.add("member_of", strings.Join(x.MemberOf, ", "))
		for _, c := range x.Config {
			k, v, _ := strings.Cut(c, "=")
			o.add("config:"+k, v)
		}
	}
	slices.SortFunc(fb.facts, compareFacts)
	return fb.facts
}

func compareFacts(a, b Fact) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Attr, b.Attr))
}

// Identity is the function's stable identity: schema.name(argument types).
func (f Function) Identity() string {
	return qualify(f.Schema, f.Name) + "(" + f.ArgTypes + ")"
}

// Identity is the operator's stable identity, as OPERATOR() and DROP OPERATOR name it:
// schema.name(left type, right type), the name unquoted (it is made of symbols), the left type
// NONE for a prefix operator.
func (o Operator) Identity() string {
	return ident(o.Schema) + "." + o.Name + "(" + o.LeftType + ", " + o.RightType + ")"
}

// Identity is the cast's stable identity, as CREATE CAST names it: (source AS target).
func (c Cast) Identity() string { return "(" + c.Source + " AS " + c.Target + ")" }

// Published is what the publication publishes of the table: "all columns" or "columns a, b",
// and "where (...)" for a row filter.
func (t PublishedTable) Published() string {
	s := "all columns"
	if len(t.Columns) > 0 {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = ident(c)
		}
		s = "columns " + strings.Join(cols, ", ")
	}
	if t.Where != "" {
		s += " where " + t.Where
	}
	return s
}

// Identity is the entry's stable identity, as ALTER DEFAULT PRIVILEGES would name it:
// "for role postgres in schema public on tables".
func (d DefaultPrivilege) Identity() string {
	s := "for role " + ident(d.Role)
	if d.Schema != "" {
		s += " in schema " + ident(d.Schema)
	}
	return s + " on " + d.ObjectType
}

type factBuilder struct{ facts []Fact }

type objFacts struct {
	fb           *factBuilder
	kind, object string
}

func (fb *factBuilder) obj(kind, object string) objFacts { return objFacts{fb, kind, object} }

func (o objFacts) add(attr, value string) {
	o.fb.facts = append(o.fb.facts, Fact{Kind: o.kind, Object: o.object, Attr: attr, Value: value})
}

func (o objFacts) addDisplay(attr, value, display string) {
	f := Fact{Kind: o.kind, Object: o.object, Attr: attr, Value: value}
	if display != value {
		f.Display = display
	}
	o.fb.facts = append(o.fb.facts, f)
}

func (o objFacts) acl(acl []Grant) {
	for _, g := range acl {
		o.add("acl:"+g.Grantee, strings.Join(g.Privileges, ", "))
	}
}

func (fb *factBuilder) column(kind string, c Column, rel string) {
	o := fb.obj(kind, rel+"."+ident(c.Name))
	o.add("position", strconv.Itoa(c.Position))
	o.add("type", c.Type)
	o.add("not_null", strconv.FormatBool(c.NotNull))
	o.add("default", c.Default)
	o.add("identity", c.Identity)
	o.add("generated", c.Generated)
	o.add("collation", c.Collation)
	o.acl(c.ACL)
	o.add("comment", c.Comment)
}

func (fb *factBuilder) constraint(c Constraint, on string) {
	o := fb.obj(KindConstraint, ident(c.Name)+" on "+on)
	o.add("type", c.Type)
	o.add("definition", c.Definition)
	o.add("comment", c.Comment)
}

func (fb *factBuilder) index(ix Index, on string) {
	o := fb.obj(KindIndex, qualify(ix.Schema, ix.Name))
	o.add("table", on)
	o.add("definition", ix.Definition)
	o.add("method", ix.Method)
	o.add("unique", strconv.FormatBool(ix.Unique))
	o.add("primary", strconv.FormatBool(ix.Primary))
	o.add("predicate", ix.Predicate)
	o.add("options", strings.Join(ix.Options, ", "))
	o.add("constraint", ix.Constraint)
	o.add("comment", ix.Comment)
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// ident double-quotes name unless it is a plain lower-case identifier.
func ident(name string) string {
	if plainIdent.MatchString(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// qualify joins names with dots, each through ident.
func qualify(names ...string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = ident(n)
	}
	return strings.Join(q, ".")
}

// nonNil replaces the nil top-level lists of s by empty ones, so that JSON shows [] for "none".
func nonNil(s *Snapshot) {
	if s.Schemas == nil {
		s.Schemas = []Schema{}
	}
	if s.Extensions == nil {
		s.Extensions = []Extension{}
	}
	if s.Types == nil {
		s.Types = []Type{}
	}
	if s.Tables == nil {
		s.Tables = []Table{}
	}
	if s.Views == nil {
		s.Views = []View{}
	}
	if s.Sequences == nil {
		s.Sequences = []Sequence{}
	}
	if s.Functions == nil {
		s.Functions = []Function{}
	}
	if s.Triggers == nil {
		s.Triggers = []Trigger{}
	}
	if s.Policies == nil {
		s.Policies = []Policy{}
	}
	if s.Roles == nil {
		s.Roles = []Role{}
	}
	if s.DefaultPrivileges == nil {
		s.DefaultPrivileges = []DefaultPrivilege{}
	}
	if s.Rules == nil {
		s.Rules = []Rule{}
	}
	if s.Operators == nil {
		s.Operators = []Operator{}
	}
	if s.Casts == nil {
		s.Casts = []Cast{}
	}
	if s.Collations == nil {
		s.Collations = []Collation{}
	}
	if s.Statistics == nil {
		s.Statistics = []Statistics{}
	}
	if s.TextSearchConfigs == nil {
		s.TextSearchConfigs = []TextSearchConfig{}
	}
	if s.EventTriggers == nil {
		s.EventTriggers = []EventTrigger{}
	}
	if s.Publications == nil {
		s.Publications = []Publication{}
	}
}
