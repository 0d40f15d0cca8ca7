// Package gate runs the whole pre-merge gate of `ledgercheck check` and returns one
// [ledgercheck/report.Report]: lint of both variants, parity of their installs (catalog
// differences through the allowlist, behavioural probes, lint's cross-check of the installed
// footprints) and the rerun audit of each.
//
// [Run] orchestrates; the steps that live in other packages are plugged in as functions
// ([ParityFunc], [RerunFunc]), so that each keeps one owner. The server boots while both
// variants are linted; then parity and both rerun audits run side by side, each in databases of
// its own. Every phase is timed.
package gate
