// Package guard carries the source of ledgercheck_guard, the PostgreSQL 15 server module that
// gives non-superusers the CREATEROLE rules of PostgreSQL 16 (README.md): the C file and its PGXS
// Makefile, which `ledgercheck setup` builds from (so that a binary alone can install it) and whose
// digest the scratch server compares with the version the loaded module reports. Its tests
// (package guard_test) attack the module.
package guard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
)

// Source holds c/ledgercheck_guard.c and c/Makefile.
//
//go:embed c/ledgercheck_guard.c c/Makefile
var Source embed.FS

// Digest is the version a module built from [Source] reports (SHOW ledgercheck_guard.version, and
// setup's GUARD_VERSION): the first 16 hex digits of the SHA-256 of c/ledgercheck_guard.c.
func Digest() string {
	src, err := Source.ReadFile("c/ledgercheck_guard.c")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])[:16]
}
