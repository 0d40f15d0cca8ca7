package introspect

import (
	"cmp"
	"slices"
	"strings"
)

// Snapshot is the catalog of the user schemas of one database. Every list is sorted by its
// stable key (see [Snapshot.Normalize]); columns stay in their table order.
type Snapshot struct {
	Schemas           []Schema           `json:"schemas"`
	Extensions        []Extension        `json:"extensions"`
	Types             []Type             `json:"types"`
	Tables            []Table            `json:"tables"`
	Views             []View             `json:"views"`
	Sequences         []Sequence         `json:"sequences"`
	Functions         []Function         `json:"functions"`
	Triggers          []Trigger          `json:"triggers"`
	Policies          []Policy           `json:"policies"`
	DefaultPrivileges []DefaultPrivilege `json:"default_privileges"`
	Rules             []Rule             `json:"rules"`
	Operators         []Operator         `json:"operators"`
	Casts             []Cast             `json:"casts"`
	Collations        []Collation        `json:"collations"`
	Statistics        []Statistics       `json:"statistics"`
	// TextSearchConfigs are the text search configurations.
	TextSearchConfigs []TextSearchConfig `json:"text_search_configurations"`
	EventTriggers     []EventTrigger     `json:"event_triggers"`
	Publications      []Publication      `json:"publications"`
	// Roles are the cluster's roles (PostgreSQL's pg_* roles aside): a migration may create
	// roles and grant memberships, which changes who holds which privileges.
	Roles []Role `json:"roles"`
}

// Role is a role with its attributes, memberships and settings.
type Role struct {
	Name            string `json:"name"`
	Superuser       bool   `json:"superuser,omitempty"`
	Inherit         bool   `json:"inherit,omitempty"`
	CreateRole      bool   `json:"createrole,omitempty"`
	CreateDB        bool   `json:"createdb,omitempty"`
	Login           bool   `json:"login,omitempty"`
	Replication     bool   `json:"replication,omitempty"`
	BypassRLS       bool   `json:"bypassrls,omitempty"`
	ConnectionLimit int    `json:"connection_limit"`
	// MemberOf are the roles this role is a member of, sorted; "*" marks ADMIN OPTION, and
	// "(inherit false)", "(inherit true)" or "(set false)" a grant (PostgreSQL 16 and later)
	// whose INHERIT or SET option differs from what a plain GRANT gives this role.
	MemberOf []string `json:"member_of,omitempty"`
	// Config are the role's settings (ALTER ROLE ... SET), for all databases or, prefixed
	// "database: ", for this one; sorted.
	Config []string `json:"config,omitempty"`
}

// Grant is one grantee's privileges on an object: the ACL items for that grantee with the
// grantor ignored. Privileges are sorted privilege names; a trailing "*" marks WITH GRANT OPTION.
// A grantee that holds every privilege of the object's kind on the server has ["ALL"] (["ALL*"]
// when all WITH GRANT OPTION), for the kinds with more than one privilege (tables, views,
// sequences, schemas, their default privileges): PostgreSQL 17 gave tables and views MAINTAIN,
// and GRANT ALL reads the same on 15 and 17 this way. Use [Grant.Holds] to ask for one privilege.
type Grant struct {
	// Grantee is a role name, or PUBLIC.
	Grantee    string   `json:"grantee"`
	Privileges []string `json:"privileges"`
}

// Holds reports whether the grant includes privilege (an upper-case name such as "SELECT"),
// with or without grant option: listed, or ALL.
func (g Grant) Holds(privilege string) bool {
	for _, p := range g.Privileges {
		switch strings.TrimSuffix(p, "*") {
		case privilege, "ALL":
			return true
		}
	}
	return false
}

// Schema is a namespace.
type Schema struct {
	Name    string  `json:"name"`
	Owner   string  `json:"owner"`
	ACL     []Grant `json:"acl,omitempty"`
	Comment string  `json:"comment,omitempty"`
}

// Extension is an installed extension. Its member objects are not part of the snapshot.
type Extension struct {
	Name    string `json:"name"`
	Schema  string `json:"schema"`
	Version string `json:"version"`
}

// Type is a user-defined enum, domain, composite or range type.
type Type struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is "enum", "domain", "composite" or "range".
	Kind    string  `json:"kind"`
	Owner   string  `json:"owner"`
	ACL     []Grant `json:"acl,omitempty"`
	Comment string  `json:"comment,omitempty"`
	// Labels are an enum's labels in sort order.
	Labels []string `json:"labels,omitempty"`
	// BaseType is a domain's base type or a range's subtype, through format_type.
	BaseType string `json:"base_type,omitempty"`
	// NotNull, Default and Collation describe a domain.
	NotNull   bool   `json:"not_null,omitempty"`
	Default   string `json:"default,omitempty"`
	Collation string `json:"collation,omitempty"`
	// Constraints are a domain's CHECK constraints.
	Constraints []Constraint `json:"constraints,omitempty"`
	// Attributes are a composite type's attributes, in order.
	Attributes []Column `json:"attributes,omitempty"`
}

// Table is an ordinary, partitioned or foreign table.
type Table struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is "table", "partitioned table" or "foreign table".
	Kind string `json:"kind"`
	// Persistence is "permanent" or "unlogged".
	Persistence string `json:"persistence"`
	Owner       string `json:"owner"`
	RLS         bool   `json:"rls"`
	ForceRLS    bool   `json:"force_rls"`
	// ReplicaIdentity is "default", "nothing", "full" or "index".
	ReplicaIdentity string `json:"replica_identity"`
	// Options are the storage parameters (reloptions), sorted.
	Options []string `json:"options,omitempty"`
	// PartitionKey is pg_get_partkeydef of a partitioned table.
	PartitionKey string `json:"partition_key,omitempty"`
	// PartitionOf and PartitionBound describe a partition.
	PartitionOf    string `json:"partition_of,omitempty"`
	PartitionBound string `json:"partition_bound,omitempty"`
	// Inherits are the parents of a table that uses INHERITS, in order.
	Inherits    []string     `json:"inherits,omitempty"`
	ACL         []Grant      `json:"acl,omitempty"`
	Comment     string       `json:"comment,omitempty"`
	Columns     []Column     `json:"columns"`
	Constraints []Constraint `json:"constraints,omitempty"`
	Indexes     []Index      `json:"indexes,omitempty"`
}

// Column is a column of a table, view or composite type.
type Column struct {
	Name string `json:"name"`
	// Position is the 1-based position among the live columns.
	Position int `json:"position"`
	// Type is format_type(atttypid, atttypmod): vector(1536), numeric(3,2), character varying(40).
	Type    string `json:"type"`
	NotNull bool   `json:"not_null,omitempty"`
	// Default is the default expression; for a generated column it is the generation expression.
	Default string `json:"default,omitempty"`
	// Identity is "always" or "by default" for an identity column.
	Identity string `json:"identity,omitempty"`
	// Generated is "stored" for a generated column.
	Generated string `json:"generated,omitempty"`
	// Collation is set when it differs from the type's default collation.
	Collation string  `json:"collation,omitempty"`
	ACL       []Grant `json:"acl,omitempty"`
	Comment   string  `json:"comment,omitempty"`
}

// Constraint is a table or domain constraint.
type Constraint struct {
	Name string `json:"name"`
	// Type is "primary key", "unique", "foreign key", "check", "exclusion" or "trigger".
	Type string `json:"type"`
	// Definition is pg_get_constraintdef: it includes NOT VALID, DEFERRABLE and FK actions.
	Definition string `json:"definition"`
	Comment    string `json:"comment,omitempty"`
}

// Index is an index of a table or materialized view.
type Index struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Definition is pg_get_indexdef.
	Definition string `json:"definition"`
	Method     string `json:"method"`
	Unique     bool   `json:"unique,omitempty"`
	Primary    bool   `json:"primary,omitempty"`
	// Predicate is the WHERE clause of a partial index.
	Predicate string `json:"predicate,omitempty"`
	// Options are the index storage parameters (hnsw m, ef_construction, ...), sorted.
	Options []string `json:"options,omitempty"`
	// Constraint names the constraint the index implements, if any.
	Constraint string `json:"constraint,omitempty"`
	Comment    string `json:"comment,omitempty"`
}

// View is a view or a materialized view.
type View struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is "view" or "materialized view".
	Kind  string `json:"kind"`
	Owner string `json:"owner"`
	// Definition is pg_get_viewdef (pretty-printed).
	Definition string `json:"definition"`
	// DefinitionNormalized is Definition in the normal form of [Options.NormalizeView], which
	// reads the same on every server version; the definition itself without one.
	DefinitionNormalized string `json:"definition_normalized"`
	// Options are the reloptions (security_invoker, security_barrier, check_option), sorted.
	Options []string `json:"options,omitempty"`
	// Populated is false for a materialized view created WITH NO DATA.
	Populated bool     `json:"populated,omitempty"`
	ACL       []Grant  `json:"acl,omitempty"`
	Comment   string   `json:"comment,omitempty"`
	Columns   []Column `json:"columns"`
	Indexes   []Index  `json:"indexes,omitempty"`
}

// Sequence is a sequence, including those behind serial and identity columns.
type Sequence struct {
	Schema    string `json:"schema"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	Cache     int64  `json:"cache"`
	Cycle     bool   `json:"cycle,omitempty"`
	// OwnedBy is the column the sequence belongs to (schema.table.column), if any.
	OwnedBy string  `json:"owned_by,omitempty"`
	Owner   string  `json:"owner"`
	ACL     []Grant `json:"acl,omitempty"`
	Comment string  `json:"comment,omitempty"`
}

// Function is a function, procedure, aggregate or window function.
type Function struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// ArgTypes are the input argument types, the identity Postgres resolves calls by
	// (oidvectortypes(proargtypes)); without typmods, which pg_proc does not keep.
	ArgTypes string `json:"arg_types"`
	// Kind is "function", "procedure", "aggregate" or "window".
	Kind string `json:"kind"`
	// Arguments is pg_get_function_arguments: names, modes, types and defaults.
	Arguments string `json:"arguments"`
	// Result is pg_get_function_result (empty for a procedure).
	Result   string `json:"result,omitempty"`
	Language string `json:"language"`
	// Volatility is "immutable", "stable" or "volatile".
	Volatility      string `json:"volatility"`
	Strict          bool   `json:"strict,omitempty"`
	SecurityDefiner bool   `json:"security_definer,omitempty"`
	Leakproof       bool   `json:"leakproof,omitempty"`
	// Parallel is "safe", "restricted" or "unsafe".
	Parallel string  `json:"parallel"`
	Cost     float64 `json:"cost"`
	Rows     float64 `json:"rows,omitempty"`
	// Config are the SET clauses (proconfig) such as "search_path=''", sorted.
	Config  []string `json:"config,omitempty"`
	Owner   string   `json:"owner"`
	ACL     []Grant  `json:"acl,omitempty"`
	Comment string   `json:"comment,omitempty"`
	// Body is the source as stored (prosrc), or the deparsed BEGIN ATOMIC body of a SQL-standard
	// function.
	Body string `json:"body"`
	// BodyNormalized is Body parsed and printed back without comments or layout (see
	// [Options.NormalizeBody]); equal normalized bodies differ only cosmetically.
	BodyNormalized string `json:"body_normalized"`
	// BodyParse tells how BodyNormalized was obtained: "parsed", or a fallback ("tokens", "text")
	// with the reason.
	BodyParse string `json:"body_parse"`
	// Aggregate is what makes an aggregate (Kind "aggregate"); nil for other kinds.
	Aggregate *Aggregate `json:"aggregate,omitempty"`
}

// Aggregate is an aggregate's pg_aggregate entry. Functions and operators are printed as
// regprocedure and regoperator print them (schema-qualified outside pg_catalog); an unset one
// is empty.
type Aggregate struct {
	// Kind is "normal", "ordered-set" or "hypothetical".
	Kind string `json:"kind"`
	// DirectArgs is the number of direct arguments of an ordered-set or hypothetical aggregate.
	DirectArgs int    `json:"direct_args"`
	Transition string `json:"transition"`
	StateType  string `json:"state_type"`
	// StateSpace is SSPACE, the state's estimated size in bytes (0: the default estimate).
	StateSpace       int    `json:"state_space"`
	InitialCondition string `json:"initial_condition,omitempty"`
	Final            string `json:"final,omitempty"`
	FinalExtra       bool   `json:"final_extra,omitempty"`
	// FinalModify is "read_only", "shareable" or "read_write".
	FinalModify  string `json:"final_modify"`
	Combine      string `json:"combine,omitempty"`
	Serial       string `json:"serial,omitempty"`
	Deserial     string `json:"deserial,omitempty"`
	SortOperator string `json:"sort_operator,omitempty"`
	// The moving-aggregate mode's functions, state and initial condition.
	MovingTransition       string `json:"moving_transition,omitempty"`
	MovingInverse          string `json:"moving_inverse,omitempty"`
	MovingFinal            string `json:"moving_final,omitempty"`
	MovingStateType        string `json:"moving_state_type,omitempty"`
	MovingInitialCondition string `json:"moving_initial_condition,omitempty"`
}

// Trigger is a user trigger (not the internal ones behind foreign keys).
type Trigger struct {
	// Table is the schema-qualified table (or view) name.
	Table string `json:"table"`
	Name  string `json:"name"`
	// Definition is pg_get_triggerdef.
	Definition string `json:"definition"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled"`
	Comment string `json:"comment,omitempty"`
}

// Policy is a row-level security policy.
type Policy struct {
	// Table is the schema-qualified table name.
	Table string `json:"table"`
	Name  string `json:"name"`
	// Permissive is false for AS RESTRICTIVE.
	Permissive bool `json:"permissive"`
	// Command is "all", "select", "insert", "update" or "delete".
	Command string `json:"command"`
	// Roles is the sorted set of roles (PUBLIC when none is named).
	Roles     []string `json:"roles"`
	Using     string   `json:"using,omitempty"`
	WithCheck string   `json:"with_check,omitempty"`
	Comment   string   `json:"comment,omitempty"`
}

// Rule is a rewrite rule of a table or view (CREATE RULE); not the _RETURN rule that makes a view.
type Rule struct {
	// Table is the schema-qualified table (or view) name.
	Table string `json:"table"`
	Name  string `json:"name"`
	// Definition is pg_get_ruledef: the event, INSTEAD or ALSO, the condition and the actions.
	Definition string `json:"definition"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled"`
	Comment string `json:"comment,omitempty"`
}

// Operator is a user-defined operator. Functions and operators are printed as regprocedure and
// regoperator print them; an unset one is empty.
type Operator struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// LeftType is the left operand's type, "NONE" for a prefix operator; RightType the right one's.
	LeftType   string `json:"left_type"`
	RightType  string `json:"right_type"`
	Result     string `json:"result"`
	Function   string `json:"function"`
	Commutator string `json:"commutator,omitempty"`
	Negator    string `json:"negator,omitempty"`
	Restrict   string `json:"restrict,omitempty"`
	Join       string `json:"join,omitempty"`
	Hashes     bool   `json:"hashes,omitempty"`
	Merges     bool   `json:"merges,omitempty"`
	Owner      string `json:"owner"`
	Comment    string `json:"comment,omitempty"`
}

// Cast is a cast created after initdb (CREATE CAST), not an extension's.
type Cast struct {
	// Source and Target are the types, through format_type.
	Source string `json:"source"`
	Target string `json:"target"`
	// Function is the cast function (regprocedure), empty WITHOUT FUNCTION or WITH INOUT.
	Function string `json:"function,omitempty"`
	// Context is "explicit", "assignment" or "implicit".
	Context string `json:"context"`
	// Method is "function", "inout" or "binary".
	Method  string `json:"method"`
	Comment string `json:"comment,omitempty"`
}

// Collation is a user-defined collation.
type Collation struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Provider is "libc", "icu", "builtin" or "default".
	Provider string `json:"provider"`
	// Locale is the ICU (or builtin) locale; LCCollate and LCCtype are libc's.
	Locale    string `json:"locale,omitempty"`
	LCCollate string `json:"lc_collate,omitempty"`
	LCCtype   string `json:"lc_ctype,omitempty"`
	// Rules are the ICU tailoring rules (PostgreSQL 16 and later).
	Rules         string `json:"rules,omitempty"`
	Deterministic bool   `json:"deterministic"`
	Owner         string `json:"owner"`
	Comment       string `json:"comment,omitempty"`
}

// Statistics is an extended statistics object (CREATE STATISTICS).
type Statistics struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Table is the schema-qualified table the statistics are on.
	Table string `json:"table"`
	// Definition is pg_get_statisticsobjdef.
	Definition string `json:"definition"`
	// Target is the statistics target set by ALTER STATISTICS, empty for the default.
	Target  string `json:"target,omitempty"`
	Owner   string `json:"owner"`
	Comment string `json:"comment,omitempty"`
}

// TextSearchConfig is a text search configuration.
type TextSearchConfig struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Parser is the schema-qualified parser.
	Parser string `json:"parser"`
	// Mapping are the token types mapped to dictionaries, sorted by token type.
	Mapping []TokenMapping `json:"mapping,omitempty"`
	Owner   string         `json:"owner"`
	Comment string         `json:"comment,omitempty"`
}

// TokenMapping maps one token type (its alias under the built-in parser, else its number) to
// dictionaries, in the order they are consulted ("public.my_dict, english_stem").
type TokenMapping struct {
	Token        string `json:"token"`
	Dictionaries string `json:"dictionaries"`
}

// EventTrigger is an event trigger.
type EventTrigger struct {
	Name string `json:"name"`
	// Event is ddl_command_start, ddl_command_end, sql_drop, table_rewrite or login.
	Event string `json:"event"`
	// Tags are the command tags of WHEN TAG IN, sorted; none means every command.
	Tags []string `json:"tags,omitempty"`
	// Function is the trigger function (regprocedure).
	Function string `json:"function"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled"`
	Owner   string `json:"owner"`
	Comment string `json:"comment,omitempty"`
}

// Publication is a logical replication publication.
type Publication struct {
	Name      string `json:"name"`
	AllTables bool   `json:"all_tables,omitempty"`
	// Publish are the operations published: "insert, update, delete, truncate" or a part.
	Publish string `json:"publish"`
	ViaRoot bool   `json:"via_root,omitempty"`
	// Tables are the tables it publishes (FOR TABLE), sorted.
	Tables []PublishedTable `json:"tables,omitempty"`
	// Schemas are the schemas of FOR TABLES IN SCHEMA, sorted.
	Schemas []string `json:"schemas,omitempty"`
	Owner   string   `json:"owner"`
	Comment string   `json:"comment,omitempty"`
}

// PublishedTable is a table of a publication, with its column list (none: every column) and
// row filter.
type PublishedTable struct {
	// Table is the schema-qualified table name.
	Table   string   `json:"table"`
	Columns []string `json:"columns,omitempty"`
	Where   string   `json:"where,omitempty"`
}

// DefaultPrivilege is one pg_default_acl entry: the privileges objects created by Role (in
// Schema, or anywhere when Schema is empty) receive.
type DefaultPrivilege struct {
	Role   string `json:"role"`
	Schema string `json:"schema,omitempty"`
	// ObjectType is "tables", "sequences", "functions", "types" or "schemas".
	ObjectType string  `json:"object_type"`
	ACL        []Grant `json:"acl"`
}

// Normalize sorts every list of s by its stable key, and the grants, options, roles and
// config inside each object. Columns and composite attributes keep their positional order, enum
// labels their sort order, and table inheritance its declared order: those orders are meaning.
// Take returns normalized snapshots; call Normalize after building or editing one by hand.
func (s *Snapshot) Normalize() {
	slices.SortFunc(s.Schemas, func(a, b Schema) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Extensions, func(a, b Extension) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Types, func(a, b Type) int { return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Tables, func(a, b Table) int { return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Views, func(a, b View) int { return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Sequences, func(a, b Sequence) int { return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Functions, func(a, b Function) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ArgTypes, b.ArgTypes))
	})
	slices.SortFunc(s.Triggers, func(a, b Trigger) int { return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Policies, func(a, b Policy) int { return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.DefaultPrivileges, func(a, b DefaultPrivilege) int {
		return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.ObjectType, b.ObjectType))
	})
	slices.SortFunc(s.Roles, func(a, b Role) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Rules, func(a, b Rule) int { return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Name, b.Name)) })
	slices.SortFunc(s.Operators, func(a, b Operator) int { return cmp.Compare(a.Identity(), b.Identity()) })
	slices.SortFunc(s.Casts, func(a, b Cast) int { return cmp.Compare(a.Identity(), b.Identity()) })
	slices.SortFunc(s.Collations, func(a, b Collation) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	slices.SortFunc(s.Statistics, func(a, b Statistics) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	slices.SortFunc(s.TextSearchConfigs, func(a, b TextSearchConfig) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	for i := range s.TextSearchConfigs {
		slices.SortFunc(s.TextSearchConfigs[i].Mapping, func(a, b TokenMapping) int { return cmp.Compare(a.Token, b.Token) })
	}
	slices.SortFunc(s.EventTriggers, func(a, b EventTrigger) int { return cmp.Compare(a.Name, b.Name) })
	for i := range s.EventTriggers {
		slices.Sort(s.EventTriggers[i].Tags)
	}
	slices.SortFunc(s.Publications, func(a, b Publication) int { return cmp.Compare(a.Name, b.Name) })
	for i := range s.Publications {
		p := &s.Publications[i]
		slices.SortFunc(p.Tables, func(a, b PublishedTable) int { return cmp.Compare(a.Table, b.Table) })
		slices.Sort(p.Schemas)
	}
	for i := range s.Roles {
		slices.Sort(s.Roles[i].MemberOf)
		slices.Sort(s.Roles[i].Config)
	}
	for i := range s.Schemas {
		normACL(s.Schemas[i].ACL)
	}
	for i := range s.Types {
		t := &s.Types[i]
		normACL(t.ACL)
		sortConstraints(t.Constraints)
		for j := range t.Attributes {
			normACL(t.Attributes[j].ACL)
		}
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		normACL(t.ACL)
		slices.Sort(t.Options)
		for j := range t.Columns {
			normACL(t.Columns[j].ACL)
		}
		sortConstraints(t.Constraints)
		sortIndexes(t.Indexes)
	}
	for i := range s.Views {
		v := &s.Views[i]
		normACL(v.ACL)
		slices.Sort(v.Options)
		for j := range v.Columns {
			normACL(v.Columns[j].ACL)
		}
		sortIndexes(v.Indexes)
	}
	for i := range s.Sequences {
		normACL(s.Sequences[i].ACL)
	}
	for i := range s.Functions {
		normACL(s.Functions[i].ACL)
		slices.Sort(s.Functions[i].Config)
	}
	for i := range s.Policies {
		slices.Sort(s.Policies[i].Roles)
	}
	for i := range s.DefaultPrivileges {
		normACL(s.DefaultPrivileges[i].ACL)
	}
}

func normACL(acl []Grant) {
	for i := range acl {
		slices.Sort(acl[i].Privileges)
	}
	slices.SortFunc(acl, func(a, b Grant) int { return cmp.Compare(a.Grantee, b.Grantee) })
}

func sortConstraints(cs []Constraint) {
	slices.SortFunc(cs, func(a, b Constraint) int { return cmp.Compare(a.Name, b.Name) })
}

func sortIndexes(ix []Index) {
	for i := range ix {
		slices.Sort(ix[i].Options)
	}
	slices.SortFunc(ix, func(a, b Index) int { return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name)) })
}
