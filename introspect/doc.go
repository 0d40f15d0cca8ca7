// Package introspect reads the catalog of one PostgreSQL database into a [Snapshot]: a complete,
// deterministic model of the user schemas, including the whole authorization surface (RLS enabled
// and forced, policies with their roles as a set, the ACL of every object class and of columns,
// default privileges, owners, SECURITY DEFINER and proconfig), and derives a [Footprint], what
// installing a migration created, changed or dropped.
//
// # Taking a snapshot
//
// [Take] runs every catalog query (queries/*.sql, one named and commented file per object kind)
// in one REPEATABLE READ READ ONLY transaction and one round trip (a pgx batch), with
// search_path set to the empty string so that every expression Postgres deparses (defaults, constraints,
// index, view, trigger and policy definitions, function signatures) comes out schema-qualified,
// and with the output-affecting settings (DateStyle, IntervalStyle, TimeZone,
// extra_float_digits) pinned. The result is sorted by stable keys ([Snapshot.Normalize]);
// ACL items and role lists are sets and the grantor is ignored. The same database gives
// byte-identical JSON every time.
//
// The environment's own schemas ([EnvironmentSchemas]) and extension-owned objects are left out
// unless [Options] asks for them; triggers and policies on environment tables (auth.users, say)
// are kept, because a sidecar migration may create them. System schemas are always left out.
// Roles (attributes, memberships, settings) are included: they are cluster-wide, but a migration
// that runs CREATE ROLE or GRANT role TO role changes who holds which privileges
// ([Options.SkipRoles] leaves them out). [TakeURL] snapshots an existing database by URI.
//
// # Facts and identities
//
// [Snapshot.Facts] flattens a snapshot into [Fact] values (kind, object, attribute, value), so
// that comparing two snapshots, or two footprints, is generic and covers every attribute by
// construction. Object identities:
//
//	schema            public
//	extension         vector
//	type              public.mood
//	table, view,
//	materialized view,
//	sequence, index   public.thoughts
//	column            public.thoughts.embedding
//	constraint        thoughts_pkey on public.thoughts
//	trigger           thoughts_updated_at on public.thoughts
//	policy            "Service role full access" on public.thoughts
//	function,
//	procedure,
//	aggregate         public.match_thoughts(extensions.vector, double precision, integer, jsonb)
//	default privileges for role postgres in schema public on tables
//	                  (for role postgres on functions, when not limited to a schema)
//	role              service_role
//
// Names are double-quoted when they are not plain lower-case identifiers. Functions are
// identified by schema, name and argument types (pg_proc keeps no typmod, so vector(1536) and
// vector(1024) arguments have the same identity; parity checks the bodies and the source).
//
// ACLs become one fact per grantee, attribute "acl:<grantee>" (PUBLIC for the pseudo-role),
// value the sorted privileges, "*" marking WITH GRANT OPTION, or ALL when the grantee holds every
// privilege of the object's kind on that server (see [Grant]: MAINTAIN, new in PostgreSQL 17,
// makes GRANT ALL a longer list there); a NULL ACL is expanded to the built-in default
// (acldefault), so the implicit EXECUTE to PUBLIC on functions is visible.
//
// # Function bodies
//
// Each function keeps its raw body for display and a normalized form from the caller's
// [Options.NormalizeBody] (ledgercheck passes its parser's: parsed with pg_query; comments and
// layout gone, every literal, identifier and typmod kept; without one, the body as written). The "body" fact compares the normalized form and carries
// the raw text in [Fact.Display], so a difference in the raw text alone is [Cosmetic] and one in
// the normalized form is [Semantic].
//
// # View definitions
//
// A view's "definition" fact compares the caller's [Options.NormalizeView] form of
// pg_get_viewdef and shows the definition as printed ([Fact.Display]). PostgreSQL 16 and later
// print the columns of a view that reads one relation without their qualifier (SELECT owner_id
// FROM public.t, where 15 printed SELECT t.owner_id FROM public.t): ledgercheck's normalizer
// reads both alike, so that definitions taken from a 15 and a 17 server compare equal, the
// difference in print [Cosmetic].
//
// # Footprint
//
// [Diff] compares two snapshots (before and after installing a migration) into a [Footprint]:
// the objects created and dropped, with their facts, and every changed attribute of an object
// that existed before (a new grant on thoughts, a changed search_path).
//
// # A public library
//
// introspect takes a connection ([Beginner]) to any PostgreSQL database and imports nothing of
// ledgercheck's but internal/fault (errors); the scratch server and the SQL parser are the
// caller's (ledgercheck's install step, internal/install, runs a migration between two
// snapshots).
package introspect
