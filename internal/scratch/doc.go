// Package scratch provides throwaway PostgreSQL databases that look like Supabase, with the Open
// Brain prerequisites installed at a chosen vector dimension, in which untrusted SQL (migrations
// from pull requests, fixtures, probes) runs. Only scratch and introspect talk to Postgres.
//
// A [Server] is either an embedded cluster (the default) or an existing server reached with a
// DSN, of PostgreSQL 15 or 17: [Options.Postgres] (--pg) asks for one, [FindBinDir] finds its
// binaries, and a server of another version is refused. The embedded cluster is initdb'd into a private temp dir and runs, with initdb, inside a
// bubblewrap sandbox (sandbox.go): its own namespaces, no host files but /usr, no network, a user
// id of the run's own when ledgercheck runs as root, a password of the run's own on its only
// socket, and every process killed with the sandbox, which dies with ledgercheck. On PostgreSQL 15
// it preloads ledgercheck's guard module (guard/), which gives CREATEROLE the rules of
// PostgreSQL 16. User SQL logs in as a non-superuser install role (postgres, shaped like
// Supabase's) and cannot grant itself any role it did not create.
//
// On a server (--dsn) the install role is a login role of the run's own, the run holds an
// advisory lock for its whole life, and everything it creates can be proven to be its own, so
// that the run, a later run or [Cleanup] drops exactly that (cleanup.go). Runs on one server take
// turns.
//
// The first [Server.NewDatabase] for a dimension builds a template database (environment plus
// prerequisites); every database after that is a copy of it, which takes a fraction of a second.
//
// Failures are told apart by who must act (health.go): a statement the server rejects is a
// [*ScriptError] (a finding), a server that dies or runs out of disk is an environment error
// with its last log lines.
package scratch
