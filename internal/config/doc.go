// Package config reads ledgercheck.yaml, the configuration of the whole gate: the two variants
// (migration file and vector dimension), the environment and prerequisites of the scratch
// databases, the allowlist, the fixture and the probes of behavioural parity, the rerun audit,
// lint's policy and the time limits. The repository root holds a commented ledgercheck.yaml that
// checks the shipped artifact and port.
//
// [Load] decodes strictly (version 1, unknown keys rejected, every value validated) and reports
// every error as "file:line: message" (exit 2). Paths in the file are relative to the file's
// directory and are resolved on load. Commands let flags override single fields (--artifact,
// --port, --allowlist, ...), so a contributor can check a port without editing the file.
//
// A missing section takes its default: builtin prerequisites, rerun twice, statement_timeout
// 60s, lock_timeout 10s, install_timeout 120s, and the shipped default's lint section ([DefaultLint]).
//
// Version 1 names the variants variants.left (the artifact) and variants.right (the port); the
// Go fields are [Variants.Artifact] and [Variants.Port], and the yaml tags are the one place the
// two vocabularies meet.
package config
