// Package config reads ledgercheck.yaml, the configuration of the whole gate: the artifact and
// its ports (migration file or deployed database, vector dimension, previous version, and each
// port's allowlist), the prerequisites of the scratch databases, the fixture and the probes of
// behavioural parity, the rerun audit, lint's policy and the time limits. The repository root
// holds a commented ledgercheck.yaml that checks the shipped artifact and port; `ledgercheck
// init` writes one for a sidecar of your own ([Template]).
//
// [Load] decodes strictly (unknown keys rejected, every value validated) and reports every
// error as "file:line: message" (exit 2). Paths in the file are relative to the file's
// directory and are resolved on load. Commands let flags override single fields (--artifact,
// --port, --allowlist, ...), so a contributor can check a port without editing the file.
//
// A missing section takes its default: the Open Brain prerequisites, no ports (the artifact
// alone), rerun twice, statement_timeout 60s, lock_timeout 10s, install_timeout 120s, and the
// shipped default's lint section ([DefaultLint]). A port's name defaults to its file's base
// name.
//
// Version 2 is the current one. A file of version 1 still loads, mapped onto version 2:
// variants.left is the artifact, variants.right (with the top-level allowlist) the one port,
// environment.prerequisites builtin|none is prerequisites.openbrain true|false and
// environment.extra is prerequisites.files. Its errors name its own keys ([Config.Key]).
package config
