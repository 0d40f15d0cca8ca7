// Package parity compares a port with the artifact: their footprints (what each install created
// and changed in the catalog) with github.com/ledgercheck/ledgercheck/diff, declared signatures and the dimension scan
// from the parsed sources included; the rows the same probe queries return on both installs,
// over the same fixture; and the differences filtered through the port's reviewed allowlist
// (internal/allowlist).
//
// parity takes installed variants ([Installed]: footprints, probe rows, parsed files) and an
// allowlist, and returns a [Report]; the gate (internal/gate) owns the databases, installs each
// variant once and shares the install with the probes, lint's cross-check and the rerun audit.
// [Compare] passes when every semantic difference (catalog or probe) is accepted by an
// allowlist entry and no entry is stale; cosmetic differences are reported and never fail.
// [Report.Phases] turns the report into the phases internal/report renders.
//
// A probe difference has kind "probe", the probe's name as object and attribute "rows"; its
// values are the rendered results (header, then rows, " | " between values, NULL as \N), so an
// allowlist entry pins the exact results by digest.
package parity
