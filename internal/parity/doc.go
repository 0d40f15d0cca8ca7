// Package parity runs the dual-install parity check: the artifact (left) and a port (right) are
// installed in parallel, each into its own scratch database with the prerequisites at its own
// dimension; their footprints are compared with ledgercheck/diff (declared signatures and the
// dimension scan from the parsed sources included); the same fixture is loaded into both and the
// same probe queries run on both, row by row; and the differences are filtered through the
// reviewed allowlist (ledgercheck/allowlist).
//
// [Run] returns a [Report]. It passes when every semantic difference (catalog or probe) is
// accepted by an allowlist entry and no entry is stale; cosmetic differences are reported and
// never fail. [Report.WriteText] and [Report.WriteJSON] render it, [Report.Findings] hands it to
// the check command.
//
// A probe difference has kind "probe", the probe's name as object and attribute "rows"; its
// values are the rendered results (header, then rows, " | " between values, NULL as \N), so an
// allowlist entry pins the exact results by digest.
package parity
