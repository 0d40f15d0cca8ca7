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
	TextSearchDicts   []TextSearchDict   `json:"text_search_dictionaries"`
	EventTriggers     []EventTrigger     `json:"event_triggers"`
	Publications      []Publication      `json:"publications"`
	// Roles are the cluster's roles (PostgreSQL's pg_* roles aside): a migration may create
	// roles and grant memberships, which changes who holds which privileges.
	Roles []Role `json:"roles"`
}

// Role is a role with its attributes, memberships and settings.
type Role struct {
	Name            string `json:"name" fact:"-,identity"`
	Superuser       bool   `json:"superuser,omitempty" fact:"superuser"`
	Inherit         bool   `json:"inherit,omitempty" fact:"inherit"`
	CreateRole      bool   `json:"createrole,omitempty" fact:"createrole"`
	CreateDB        bool   `json:"createdb,omitempty" fact:"createdb"`
	Login           bool   `json:"login,omitempty" fact:"login"`
	Replication     bool   `json:"replication,omitempty" fact:"replication"`
	BypassRLS       bool   `json:"bypassrls,omitempty" fact:"bypassrls"`
	ConnectionLimit int    `json:"connection_limit" fact:"connection_limit"`
	// MemberOf are the roles this role is a member of, sorted; "*" marks ADMIN OPTION, and
	// "(inherit false)", "(inherit true)" or "(set false)" a grant (PostgreSQL 16 and later)
	// whose INHERIT or SET option differs from what a plain GRANT gives this role.
	MemberOf []string `json:"member_of,omitempty" fact:"member_of"`
	// Config are the role's settings (ALTER ROLE ... SET), for all databases or, prefixed
	// "database: ", for this one; sorted.
	Config []string `json:"config,omitempty" fact:"config,entries"`
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
	Name    string  `json:"name" fact:"-,identity"`
	Owner   string  `json:"owner" fact:"owner"`
	ACL     []Grant `json:"acl,omitempty" fact:"acl,entries"`
	Comment string  `json:"comment,omitempty" fact:"comment"`
}

// Extension is an installed extension. Its member objects are not part of the snapshot.
type Extension struct {
	Name    string `json:"name" fact:"-,identity"`
	Schema  string `json:"schema" fact:"schema"`
	Version string `json:"version" fact:"version"`
}

// Type is a user-defined enum, domain, composite or range type.
type Type struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Kind is "enum", "domain", "composite" or "range".
	Kind    string  `json:"kind" fact:"kind"`
	Owner   string  `json:"owner" fact:"owner"`
	ACL     []Grant `json:"acl,omitempty" fact:"acl,entries"`
	Comment string  `json:"comment,omitempty" fact:"comment"`
	// Labels are an enum's labels in sort order.
	Labels []string `json:"labels,omitempty" fact:"labels,if=kind:enum"`
	// BaseType is a domain's base type or a range's subtype, through format_type.
	BaseType string `json:"base_type,omitempty" fact:"base_type,omitempty"`
	// NotNull, Default and Collation describe a domain.
	NotNull   bool   `json:"not_null,omitempty" fact:"not_null,if=kind:domain"`
	Default   string `json:"default,omitempty" fact:"default,if=kind:domain"`
	Collation string `json:"collation,omitempty" fact:"collation,if=kind:domain"`
	// Constraints are a domain's CHECK constraints.
	Constraints []Constraint `json:"constraints,omitempty" fact:"-,kind=constraint"`
	// Attributes are a composite type's attributes, in order.
	Attributes []Column `json:"attributes,omitempty" fact:"-,kind=attribute"`
}

// Table is an ordinary, partitioned or foreign table.
type Table struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Kind is "table", "partitioned table" or "foreign table".
	Kind string `json:"kind" fact:"kind"`
	// Persistence is "permanent" or "unlogged".
	Persistence string `json:"persistence" fact:"persistence"`
	Owner       string `json:"owner" fact:"owner"`
	RLS         bool   `json:"rls" fact:"rls"`
	ForceRLS    bool   `json:"force_rls" fact:"force_rls"`
	// ReplicaIdentity is "default", "nothing", "full" or "index".
	ReplicaIdentity string `json:"replica_identity" fact:"replica_identity"`
	// Options are the storage parameters (reloptions), sorted.
	Options []string `json:"options,omitempty" fact:"options"`
	// PartitionKey is pg_get_partkeydef of a partitioned table.
	PartitionKey string `json:"partition_key,omitempty" fact:"partition_key"`
	// PartitionOf and PartitionBound describe a partition.
	PartitionOf    string `json:"partition_of,omitempty" fact:"partition_of"`
	PartitionBound string `json:"partition_bound,omitempty" fact:"partition_bound"`
	// Inherits are the parents of a table that uses INHERITS, in order.
	Inherits    []string     `json:"inherits,omitempty" fact:"inherits"`
	ACL         []Grant      `json:"acl,omitempty" fact:"acl,entries"`
	Comment     string       `json:"comment,omitempty" fact:"comment"`
	Columns     []Column     `json:"columns" fact:"-,kind=column"`
	Constraints []Constraint `json:"constraints,omitempty" fact:"-,kind=constraint"`
	Indexes     []Index      `json:"indexes,omitempty" fact:"-,kind=index"`
}

// Column is a column of a table, view or composite type.
type Column struct {
	Name string `json:"name" fact:"-,identity"`
	// Position is the 1-based position among the live columns.
	Position int `json:"position" fact:"position"`
	// Type is format_type(atttypid, atttypmod): vector(1536), numeric(3,2), character varying(40).
	Type    string `json:"type" fact:"type"`
	NotNull bool   `json:"not_null,omitempty" fact:"not_null"`
	// Default is the default expression; for a generated column it is the generation expression.
	Default string `json:"default,omitempty" fact:"default"`
	// Identity is "always" or "by default" for an identity column.
	Identity string `json:"identity,omitempty" fact:"identity"`
	// Generated is "stored" for a generated column.
	Generated string `json:"generated,omitempty" fact:"generated"`
	// Collation is set when it differs from the type's default collation.
	Collation string  `json:"collation,omitempty" fact:"collation"`
	ACL       []Grant `json:"acl,omitempty" fact:"acl,entries"`
	Comment   string  `json:"comment,omitempty" fact:"comment"`
}

// Constraint is a table or domain constraint.
type Constraint struct {
	Name string `json:"name" fact:"-,identity"`
	// Type is "primary key", "unique", "foreign key", "check", "exclusion" or "trigger".
	Type string `json:"type" fact:"type"`
	// Definition is pg_get_constraintdef: it includes NOT VALID, DEFERRABLE and FK actions.
	Definition string `json:"definition" fact:"definition"`
	Comment    string `json:"comment,omitempty" fact:"comment"`
}

// Index is an index of a table or materialized view.
type Index struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Definition is pg_get_indexdef.
	Definition string `json:"definition" fact:"definition"`
	Method     string `json:"method" fact:"method"`
	Unique     bool   `json:"unique,omitempty" fact:"unique"`
	Primary    bool   `json:"primary,omitempty" fact:"primary"`
	// Predicate is the WHERE clause of a partial index.
	Predicate string `json:"predicate,omitempty" fact:"predicate"`
	// Options are the index storage parameters (hnsw m, ef_construction, ...), sorted.
	Options []string `json:"options,omitempty" fact:"options"`
	// Constraint names the constraint the index implements, if any.
	Constraint string `json:"constraint,omitempty" fact:"constraint"`
	Comment    string `json:"comment,omitempty" fact:"comment"`
}

// View is a view or a materialized view.
type View struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Kind is "view" or "materialized view".
	Kind  string `json:"kind" fact:"kind"`
	Owner string `json:"owner" fact:"owner"`
	// Definition is pg_get_viewdef (pretty-printed).
	Definition string `json:"definition" fact:"definition,display"`
	// DefinitionNormalized is Definition in the normal form of [Options.NormalizeView], which
	// reads the same on every server version; the definition itself without one.
	DefinitionNormalized string `json:"definition_normalized" fact:"definition"`
	// Options are the reloptions (security_invoker, security_barrier, check_option), sorted.
	Options []string `json:"options,omitempty" fact:"options"`
	// Populated is false for a materialized view created WITH NO DATA.
	Populated bool     `json:"populated,omitempty" fact:"populated,if=kind:materialized view"`
	ACL       []Grant  `json:"acl,omitempty" fact:"acl,entries"`
	Comment   string   `json:"comment,omitempty" fact:"comment"`
	Columns   []Column `json:"columns" fact:"-,kind=column"`
	Indexes   []Index  `json:"indexes,omitempty" fact:"-,kind=index"`
}

// Sequence is a sequence, including those behind serial and identity columns.
type Sequence struct {
	Schema    string `json:"schema" fact:"-,identity"`
	Name      string `json:"name" fact:"-,identity"`
	Type      string `json:"type" fact:"type"`
	Start     int64  `json:"start" fact:"start"`
	Increment int64  `json:"increment" fact:"increment"`
	Min       int64  `json:"min" fact:"min"`
	Max       int64  `json:"max" fact:"max"`
	Cache     int64  `json:"cache" fact:"cache"`
	Cycle     bool   `json:"cycle,omitempty" fact:"cycle"`
	// OwnedBy is the column the sequence belongs to (schema.table.column), if any.
	OwnedBy string  `json:"owned_by,omitempty" fact:"owned_by"`
	Owner   string  `json:"owner" fact:"owner"`
	ACL     []Grant `json:"acl,omitempty" fact:"acl,entries"`
	Comment string  `json:"comment,omitempty" fact:"comment"`
}

// Function is a function, procedure, aggregate or window function.
type Function struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// ArgTypes are the input argument types, the identity Postgres resolves calls by
	// (oidvectortypes(proargtypes)); without typmods, which pg_proc does not keep.
	ArgTypes string `json:"arg_types" fact:"-,identity"`
	// Kind is "function", "procedure", "aggregate" or "window".
	Kind string `json:"kind" fact:"kind"`
	// Arguments is pg_get_function_arguments: names, modes, types and defaults.
	Arguments string `json:"arguments" fact:"arguments"`
	// Result is pg_get_function_result (empty for a procedure).
	Result   string `json:"result,omitempty" fact:"result"`
	Language string `json:"language" fact:"language"`
	// Volatility is "immutable", "stable" or "volatile".
	Volatility      string `json:"volatility" fact:"volatility"`
	Strict          bool   `json:"strict,omitempty" fact:"strict"`
	SecurityDefiner bool   `json:"security_definer,omitempty" fact:"security_definer"`
	Leakproof       bool   `json:"leakproof,omitempty" fact:"leakproof"`
	// Parallel is "safe", "restricted" or "unsafe".
	Parallel string  `json:"parallel" fact:"parallel"`
	Cost     float64 `json:"cost" fact:"cost"`
	Rows     float64 `json:"rows,omitempty" fact:"rows"`
	// Config are the SET clauses (proconfig) such as "search_path=''", sorted.
	Config  []string `json:"config,omitempty" fact:"config,entries"`
	Owner   string   `json:"owner" fact:"owner"`
	ACL     []Grant  `json:"acl,omitempty" fact:"acl,entries"`
	Comment string   `json:"comment,omitempty" fact:"comment"`
	// Body is the source as stored (prosrc), or the deparsed BEGIN ATOMIC body of a SQL-standard
	// function.
	Body string `json:"body" fact:"body,display"`
	// BodyNormalized is Body parsed and printed back without comments or layout (see
	// [Options.NormalizeBody]); equal normalized bodies differ only cosmetically.
	BodyNormalized string `json:"body_normalized" fact:"body"`
	// BodyParse tells how BodyNormalized was obtained: "parsed", or a fallback ("tokens", "text")
	// with the reason.
	BodyParse string `json:"body_parse" fact:"-,internal"`
	// Aggregate is what makes an aggregate (Kind "aggregate"); nil for other kinds.
	Aggregate *Aggregate `json:"aggregate,omitempty" fact:"-,inline"`
}

// Aggregate is an aggregate's pg_aggregate entry. Functions and operators are printed as
// regprocedure and regoperator print them (schema-qualified outside pg_catalog); an unset one
// is empty.
type Aggregate struct {
	// Kind is "normal", "ordered-set" or "hypothetical".
	Kind string `json:"kind" fact:"aggregate_kind"`
	// DirectArgs is the number of direct arguments of an ordered-set or hypothetical aggregate.
	DirectArgs int    `json:"direct_args" fact:"direct_args"`
	Transition string `json:"transition" fact:"transition"`
	StateType  string `json:"state_type" fact:"state_type"`
	// StateSpace is SSPACE, the state's estimated size in bytes (0: the default estimate).
	StateSpace       int    `json:"state_space" fact:"state_space"`
	InitialCondition string `json:"initial_condition,omitempty" fact:"initial_condition"`
	Final            string `json:"final,omitempty" fact:"final"`
	FinalExtra       bool   `json:"final_extra,omitempty" fact:"final_extra"`
	// FinalModify is "read_only", "shareable" or "read_write".
	FinalModify  string `json:"final_modify" fact:"final_modify"`
	Combine      string `json:"combine,omitempty" fact:"combine"`
	Serial       string `json:"serial,omitempty" fact:"serial"`
	Deserial     string `json:"deserial,omitempty" fact:"deserial"`
	SortOperator string `json:"sort_operator,omitempty" fact:"sort_operator"`
	// The moving-aggregate mode's functions, state and initial condition.
	MovingTransition       string `json:"moving_transition,omitempty" fact:"moving_transition"`
	MovingInverse          string `json:"moving_inverse,omitempty" fact:"moving_inverse"`
	MovingFinal            string `json:"moving_final,omitempty" fact:"moving_final"`
	MovingStateType        string `json:"moving_state_type,omitempty" fact:"moving_state_type"`
	MovingInitialCondition string `json:"moving_initial_condition,omitempty" fact:"moving_initial_condition"`
}

// Trigger is a user trigger (not the internal ones behind foreign keys).
type Trigger struct {
	// Table is the schema-qualified table (or view) name.
	Table string `json:"table" fact:"-,identity"`
	Name  string `json:"name" fact:"-,identity"`
	// Definition is pg_get_triggerdef.
	Definition string `json:"definition" fact:"definition"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled" fact:"enabled"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// Policy is a row-level security policy.
type Policy struct {
	// Table is the schema-qualified table name.
	Table string `json:"table" fact:"-,identity"`
	Name  string `json:"name" fact:"-,identity"`
	// Permissive is false for AS RESTRICTIVE.
	Permissive bool `json:"permissive" fact:"permissive"`
	// Command is "all", "select", "insert", "update" or "delete".
	Command string `json:"command" fact:"command"`
	// Roles is the sorted set of roles (PUBLIC when none is named).
	Roles     []string `json:"roles" fact:"roles"`
	Using     string   `json:"using,omitempty" fact:"using"`
	WithCheck string   `json:"with_check,omitempty" fact:"with_check"`
	Comment   string   `json:"comment,omitempty" fact:"comment"`
}

// Rule is a rewrite rule of a table or view (CREATE RULE); not the _RETURN rule that makes a view.
type Rule struct {
	// Table is the schema-qualified table (or view) name.
	Table string `json:"table" fact:"-,identity"`
	Name  string `json:"name" fact:"-,identity"`
	// Definition is pg_get_ruledef: the event, INSTEAD or ALSO, the condition and the actions.
	Definition string `json:"definition" fact:"definition"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled" fact:"enabled"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// Operator is a user-defined operator. Functions and operators are printed as regprocedure and
// regoperator print them; an unset one is empty.
type Operator struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// LeftType is the left operand's type, "NONE" for a prefix operator; RightType the right one's.
	LeftType   string `json:"left_type" fact:"-,identity"`
	RightType  string `json:"right_type" fact:"-,identity"`
	Result     string `json:"result" fact:"result"`
	Function   string `json:"function" fact:"function"`
	Commutator string `json:"commutator,omitempty" fact:"commutator"`
	Negator    string `json:"negator,omitempty" fact:"negator"`
	Restrict   string `json:"restrict,omitempty" fact:"restrict"`
	Join       string `json:"join,omitempty" fact:"join"`
	Hashes     bool   `json:"hashes,omitempty" fact:"hashes"`
	Merges     bool   `json:"merges,omitempty" fact:"merges"`
	Owner      string `json:"owner" fact:"owner"`
	Comment    string `json:"comment,omitempty" fact:"comment"`
}

// Cast is a cast created after initdb (CREATE CAST), not an extension's.
type Cast struct {
	// Source and Target are the types, through format_type.
	Source string `json:"source" fact:"-,identity"`
	Target string `json:"target" fact:"-,identity"`
	// Function is the cast function (regprocedure), empty WITHOUT FUNCTION or WITH INOUT.
	Function string `json:"function,omitempty" fact:"function"`
	// Context is "explicit", "assignment" or "implicit".
	Context string `json:"context" fact:"context"`
	// Method is "function", "inout" or "binary".
	Method  string `json:"method" fact:"method"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// Collation is a user-defined collation.
type Collation struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Provider is "libc", "icu", "builtin" or "default".
	Provider string `json:"provider" fact:"provider"`
	// Locale is the ICU (or builtin) locale; LCCollate and LCCtype are libc's.
	Locale    string `json:"locale,omitempty" fact:"locale"`
	LCCollate string `json:"lc_collate,omitempty" fact:"lc_collate"`
	LCCtype   string `json:"lc_ctype,omitempty" fact:"lc_ctype"`
	// Rules are the ICU tailoring rules (PostgreSQL 16 and later).
	Rules         string `json:"rules,omitempty" fact:"rules"`
	Deterministic bool   `json:"deterministic" fact:"deterministic"`
	Owner         string `json:"owner" fact:"owner"`
	Comment       string `json:"comment,omitempty" fact:"comment"`
}

// Statistics is an extended statistics object (CREATE STATISTICS).
type Statistics struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Table is the schema-qualified table the statistics are on.
	Table string `json:"table" fact:"table"`
	// Definition is pg_get_statisticsobjdef.
	Definition string `json:"definition" fact:"definition"`
	// Target is the statistics target set by ALTER STATISTICS, empty for the default.
	Target  string `json:"target,omitempty" fact:"target"`
	Owner   string `json:"owner" fact:"owner"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// TextSearchConfig is a text search configuration.
type TextSearchConfig struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Parser is the schema-qualified parser.
	Parser string `json:"parser" fact:"parser"`
	// Mapping are the token types mapped to dictionaries, sorted by token type.
	Mapping []TokenMapping `json:"mapping,omitempty" fact:"mapping,entries"`
	Owner   string         `json:"owner" fact:"owner"`
	Comment string         `json:"comment,omitempty" fact:"comment"`
}

// TextSearchDict is a text search dictionary (CREATE TEXT SEARCH DICTIONARY), what a
// text search configuration maps token types to.
type TextSearchDict struct {
	Schema string `json:"schema" fact:"-,identity"`
	Name   string `json:"name" fact:"-,identity"`
	// Template is the schema-qualified template (pg_catalog.simple, pg_catalog.snowball, ...).
	Template string `json:"template" fact:"template"`
	// Options are the template's options as the server stores them: "stopwords = 'english'".
	Options string `json:"options,omitempty" fact:"options"`
	Owner   string `json:"owner" fact:"owner"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// TokenMapping maps one token type (its alias under the built-in parser, else its number) to
// dictionaries, in the order they are consulted ("public.my_dict, english_stem").
type TokenMapping struct {
	Token        string `json:"token"`
	Dictionaries string `json:"dictionaries"`
}

// EventTrigger is an event trigger.
type EventTrigger struct {
	Name string `json:"name" fact:"-,identity"`
	// Event is ddl_command_start, ddl_command_end, sql_drop, table_rewrite or login.
	Event string `json:"event" fact:"event"`
	// Tags are the command tags of WHEN TAG IN, sorted; none means every command.
	Tags []string `json:"tags,omitempty" fact:"tags"`
	// Function is the trigger function (regprocedure).
	Function string `json:"function" fact:"function"`
	// Enabled is "origin" (the default), "disabled", "replica" or "always".
	Enabled string `json:"enabled" fact:"enabled"`
	Owner   string `json:"owner" fact:"owner"`
	Comment string `json:"comment,omitempty" fact:"comment"`
}

// Publication is a logical replication publication.
type Publication struct {
	Name      string `json:"name" fact:"-,identity"`
	AllTables bool   `json:"all_tables,omitempty" fact:"all_tables"`
	// Publish are the operations published: "insert, update, delete, truncate" or a part.
	Publish string `json:"publish" fact:"publish"`
	ViaRoot bool   `json:"via_root,omitempty" fact:"via_root"`
	// Tables are the tables it publishes (FOR TABLE), sorted.
	Tables []PublishedTable `json:"tables,omitempty" fact:"table,entries"`
	// Schemas are the schemas of FOR TABLES IN SCHEMA, sorted.
	Schemas []string `json:"schemas,omitempty" fact:"schema,entries,value=all tables"`
	Owner   string   `json:"owner" fact:"owner"`
	Comment string   `json:"comment,omitempty" fact:"comment"`
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
	Role   string `json:"role" fact:"-,identity"`
	Schema string `json:"schema,omitempty" fact:"-,identity"`
	// ObjectType is "tables", "sequences", "functions", "types" or "schemas".
	ObjectType string  `json:"object_type" fact:"object_type"`
	ACL        []Grant `json:"acl" fact:"acl,entries"`
}

// Normalize sorts every list of s by its stable key, and the grants, options, roles and
// config inside each object. Columns and composite attributes keep their positional order, enum
// labels their sort order, and table inheritance its declared order: those orders are meaning.
// Take returns normalized snapshots; call Normalize after building or editing one by hand.
func (s *Snapshot) Normalize() {
	for _, k := range kinds {
		if k.sort != nil {
			k.sort(s)
		}
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
