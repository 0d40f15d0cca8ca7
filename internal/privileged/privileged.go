// Package privileged is the one place that makes the configuration of a privileged session: a
// session ledgercheck opens with more privilege than the migration's install role (the embedded
// cluster's superuser, the --dsn role, a reader of a deployed database).
//
// The rule for such a session (docs/architecture.md, "Privileged sessions"): it never resolves
// a name that the migration could have defined.
//
//   - Its search_path is pg_catalog from the connection's start: a startup parameter, which
//     outranks ALTER DATABASE and ALTER ROLE settings and which no SET of a function the
//     migration wrote can have changed, since none runs before it.
//   - Its role is its login role from the start (role = none): the migration owns its database
//     and can ALTER DATABASE ... SET role = a role it created, which every later session would
//     otherwise switch to.
//   - The other settings the migration can give its own database that would stop ledgercheck's
//     own reads are fixed from the start too (sessionDefaults: no statement, lock or idle
//     timeout, read committed): a database SET statement_timeout = 1 would otherwise end the
//     run's digests with an environment error instead of a verdict. default_transaction_read_only
//     is not among them: a DSN that asks for a read-only session is refused as it asks (the
//     warden puts a database's read-only default back).
//   - Every query of ledgercheck's that such a session runs names pg_catalog's functions,
//     operators and types explicitly (pg_catalog.count, OPERATOR(pg_catalog.=),
//     ::pg_catalog.text) and avoids the constructs that look an operator up by name (IN lists,
//     NOT IN, LIKE, BETWEEN, IS DISTINCT FROM, NULLIF, a simple CASE, JOIN USING): an
//     unqualified name resolves through pg_catalog only when nothing else on the path is a
//     better match, and a migration can always create a better one (quote_ident(name) beats
//     pg_catalog.quote_ident(text) for a name argument).
//   - It never casts, to_json's or format's a value of a type the migration could have defined
//     (CREATE CAST (myenum AS json) runs a function of the migration's): table contents are read
//     in the protocol's text format, which prints them with their types' output functions.
//
// The package's tests: TestPrivilegedSQLResolvesOnlyPgCatalog finds every query of ledgercheck's and
// checks the second point by construction; TestPrivilegedSessionsRunNoShadow plants shadows of
// every name they use and runs every command.
package privileged

import "github.com/jackc/pgx/v5"

// Config makes cfg the configuration of a privileged session (search_path = pg_catalog, role =
// none and sessionDefaults from the connection's start, overriding whatever the DSN, the
// environment or the database's settings say), and returns it. Copies of cfg (pgx's ConnConfig.Copy) keep it.
func Config(cfg *pgx.ConnConfig) *pgx.ConnConfig {
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["search_path"] = "pg_catalog"
	cfg.RuntimeParams["role"] = "none"
	for k, v := range sessionDefaults {
		cfg.RuntimeParams[k] = v
	}
	return cfg
}

// sessionDefaults are the settings of a privileged session, besides search_path and role, that
// a database's or a role's defaults could otherwise set: each is one a non-superuser may give
// its own database (ALTER DATABASE ... SET) and that would stop or change ledgercheck's reads.
// Every one exists on PostgreSQL 15 and 17 (an unknown startup parameter refuses the session).
var sessionDefaults = map[string]string{
	"statement_timeout":                   "0",
	"lock_timeout":                        "0",
	"idle_in_transaction_session_timeout": "0",
	"idle_session_timeout":                "0",
	"default_transaction_isolation":       "read committed",
}
