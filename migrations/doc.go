// Package migrations is the product under review: the decision-ledger artifact
// (decision_ledger.sql, 1536-dim) and its production port (ports/decision_ledger_1024.sql), with
// their SQL tests, which install both on the scratch server and check the ranking fixes, reruns,
// the upgrade from the first cut and concurrent use. It has no code: the tool's environment and
// the Open Brain prerequisites are internal/scratch's (README.md here says what is where).
package migrations
