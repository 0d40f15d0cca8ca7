// Package fill generates rows for the tables a migration created, for the rerun and upgrade
// audits of a sidecar that has no fixture: without rows, "no row is lost" is checked on nothing.
//
// [New] plans the rows from catalog snapshots alone (no query of its own): the tables the
// install created (in the snapshot after it and not in the one before), and the tables their
// foreign keys reference (a prerequisite such as public.thoughts, filled as a fixture would),
// in dependency order. Each table gets a few rows ([DefaultRows]); a column with a default, an
// identity or a generation expression is left to it; every other column gets a value of its
// type (text, numbers, booleans, uuid, dates and times, json, arrays, enums from the snapshot's
// labels, domains, vector(N) at the column's dimension, tsvector, bytea, ranges, ...), distinct
// from row to row so that primary keys and unique constraints hold, and, for a column a CHECK
// constraint names, first the literals of that constraint (the labels of an IN list, the
// bounds of a range). A foreign key takes the rows of the referenced table, generated earlier or
// already there; a nullable one with nothing to reference is NULL. Values come from a seeded
// generator, keyed by table, column and row, so that a run is reproducible.
//
// [Run] inserts the rows on a session of the role user SQL runs as (the migration's own role:
// its triggers fire, as on a real insert), one INSERT per row with untyped literals that the
// server reads with the column type's input function, as a fixture would. A row the server
// rejects (a CHECK the values do not meet, a trigger that raises) is tried again with other
// values for the columns the error names, a few times, then dropped; a table none of whose
// rows goes in is skipped, and the result says why. Nothing here fails the gate.
package fill
