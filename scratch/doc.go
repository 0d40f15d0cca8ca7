// Package scratch provides throwaway PostgreSQL databases that look like Supabase, with the Open
// Brain prerequisites installed at a chosen vector dimension. Only scratch and introspect talk to
// Postgres.
//
// A [Server] is either an embedded cluster (the default: initdb into a private temp dir, a
// postmaster listening only on a unix socket inside it, run as the unprivileged `postgres` OS user
// when ledgercheck runs as root) or an existing server reached with a DSN, where scratch creates
// uniquely named databases (prefix `ledgercheck_`) and drops them again. Untrusted SQL only ever
// runs in databases that scratch created.
//
// The first [Server.NewDatabase] for a dimension builds a template database (environment plus
// prerequisites); every database after that is a copy of it, which takes a fraction of a second.
//
// [Server.Close] drops what was created, stops the embedded cluster and removes its directory.
// The postmaster is also bound to the life of the ledgercheck process (a parent-death signal), so
// a killed run does not leave a server behind.
package scratch
