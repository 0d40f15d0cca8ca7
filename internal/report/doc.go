// Package report holds ledgercheck's finding model and is the only package that knows output
// formats.
//
// A [finding.Finding] is one thing the gate reports. A [Report] is the result of a whole run: the tool
// and its version, one [PhaseResult] per phase of the gate (status, findings, duration, notes and
// counts such as allowlisted or cosmetic differences) and the metadata of the rules the findings
// refer to ([RuleInfo]), which the caller passes in so that report does not depend on lint.
//
// Each output format is one function from a Report to a writer:
//
//   - [WriteReportText]: a summary table, then the findings grouped by phase; colored when asked.
//   - [WriteReportJSON]: the versioned document described in docs/json-schema.md
//     ([SchemaVersion]).
//   - [WriteSARIF]: SARIF 2.1.0 for GitHub code scanning, with repo-relative locations.
//   - [WriteGitHub]: GitHub Actions workflow commands (::error file=...::), escaped and capped
//     as GitHub caps annotations, plus a markdown job summary.
//   - [WriteHTML]: one self-contained page with the summary and side-by-side diffs.
//
// [WriteText] is the compact text form of `ledgercheck lint`: one line per finding. Every command
// that reports findings (check, lint, parity, rerun) writes the same JSON document, and
// [WriteSnapshotJSON] and [WriteFootprintJSON] wrap `ledgercheck snapshot`'s output in the same
// versioned envelope; [WriteSnapshotText] and [WriteFootprintText] are its text form.
//
// Positions are 1-based lines and columns counted in Unicode code points, in every format.
package report
