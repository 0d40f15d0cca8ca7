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
// What runs concurrently: the server boots while both variants are linted. With a
// [ServerParityFunc] (ledgercheck/parity, as `ledgercheck check` uses), parity installs, compares
// and probes first, alone, since roles are cluster-wide and a footprint must not see another
// install's roles; then both rerun audits run together. Without one, the gate installs the
// variants one after the other and runs [CatalogParity] beside the rerun audits. Every phase is
// timed.
package gate
