// Package gate runs the whole pre-merge gate of `ledgercheck check` and returns one
// [ledgercheck/report.Report]: lint of both variants, their installs into scratch databases, the
// rerun audit of each, and parity (catalog differences through the allowlist, behavioural
// probes).
//
// [Run] orchestrates; the steps that live in other packages are plugged in as functions
// ([ParityFunc], [RerunFunc]), so the orchestration is tested on its own and each step keeps one
// owner. [CatalogParity] is the catalog step built on ledgercheck/diff and
// ledgercheck/allowlist.
//
// What runs concurrently: the server boots while both variants are linted; the two installs run
// one after the other (roles are cluster-wide, so a footprint must not see the other install's
// roles) while the second dimension's template is built; then both rerun audits and parity run
// together. Every phase is timed.
package gate
