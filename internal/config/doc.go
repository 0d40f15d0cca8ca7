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
// Version 2 ([Version]) is one sidecar: its artifact and ports.
//
// Version 3 ([RepositoryVersion]) is a repository of sidecars: sidecars: lists them, each with
// the keys of version 2 (its file, dim, previous, ports, prerequisites, fixture, probes, rerun,
// lint), the top-level keys their defaults, and needs: the sidecars installed before it; a
// {glob: PATTERN, ...} entry adds one sidecar per matching file, named after its directory.
// [Config.Repository] returns the sidecars in dependency order (one for version 2); an
// unknown need or a cycle is an error at the needs item's line and column.
package config
