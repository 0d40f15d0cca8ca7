// Package lint checks a parsed migration ([pgsql.File]) against the sidecar contract: the file
// may create objects, but must not alter, drop, rename, truncate, comment on or change privileges
// of objects it did not create; every new table carries RLS, a service_role policy and explicit
// grants; the file ends with NOTIFY pgrst, 'reload schema'; and it is safe to run twice.
//
// Each rule lives in a file named after it (table_rls_disabled.go), which holds its id constant
// ([TableRLSDisabled]) and registers a [Rule] with a default severity, explain text (the reason
// and a corrected example) and its check; registering puts it in the catalog of every phase's
// rules (internal/rule). [Run] applies every rule and
// returns the findings sorted by position; [Source] parses a file first and turns a syntax error
// into a parse-error finding. [Rules] and [Lookup] give the registry to `ledgercheck explain`.
//
// Suppression: a comment "-- ledgercheck:ignore RULE-ID[, RULE-ID...] reason" on the line
// before a top-level statement suppresses those rules' findings within that statement only;
// "-- ledgercheck:ignore-file RULE-ID[, ...] reason", anywhere in the file, suppresses them in
// the whole file, for rules that are not security rules (suppression.go). The reason is
// required; a suppression of another form, naming an unknown rule, lacking a reason, not
// followed by a statement, or suppressing nothing is itself an error finding.
//
// Policy lives in [Config] (the `lint:` section of ledgercheck.yaml; without one, the shipped
// default configuration's, internal/config/default.yaml): the objects assumed to exist before
// the file runs, the exceptions allowed on them (the ledger's enroll trigger on
// public.agent_memories), allowed grantees and severity overrides.
package lint
