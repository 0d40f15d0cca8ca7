// Package gate owns ledgercheck's pipeline: every command that checks migrations asks it for a
// subset of what `ledgercheck check` runs, and renders the [github.com/ledgercheck/ledgercheck/internal/report.Report]
// it returns. The commands hold no domain logic (docs/architecture.md, "The pipeline").
//
// [Run] takes a [Request]: the artifact, its ports (each with its name and allowlist, any
// number of them), the prerequisites, the fixture, the probes and the [Steps] to run. A variant
// may be read from a database that holds it ([Variant.DSN], only read) instead of, or besides,
// being installed from its file. Each variant is parsed once; the parse serves lint, the
// install, lint's cross-check and diff's declared signatures. While the scratch server boots,
// the variants are linted; then each variant goes through its own sequence of steps
// (pipeline.variant, variant.go) in ONE database, a copy of its dimension's template (whose
// snapshot, the footprint's "before", is the template's description, taken once when it was
// built): install and footprint, the audit, fixture, probes (each rolled back, beside the rerun
// audit's baseline), cross-check, and the rerun audit's runs 2..N on the same database; a
// variant with a previous version gets one more database for the upgrade audit. Then each port
// is compared with the artifact (internal/parity), and the report is built from the request
// and what each step returned (assemble.go). The variants run side by side, which two cores
// serve well: the server does the work.
//
//   - check: every step ([Run]).
//   - parity: the installs, fixture, probes and parity ([Steps.Parity] alone).
//   - rerun: one variant, the fixture, the rerun and upgrade audits, each a phase of its own
//     ([Rerun]).
//   - lint: [Lint], parse and lint, and with --install the same install, audit and
//     cross-check steps.
//
// The phases (internal/parity, internal/rerun, internal/crosscheck, internal/audit,
// internal/lint, internal/probe) take their inputs and return findings; the gate owns
// databases, ordering and concurrency. Importing gate registers every rule any phase reports in
// the catalog (internal/rule).
package gate
