package parity

import (
	"fmt"
	"strings"
)

// versionNote says which server version each variant ran on, and whether their major versions
// differ. Differences that only the version makes (a privilege one version has, a definition
// deparsed differently) are reported like any other where ledgercheck does not read them alike
// (README, "PostgreSQL 15 and 17"); the note says to expect them.
func versionNote(artifact, port Installed) (note string, differ bool) {
	if artifact.Server == "" || port.Server == "" {
		return "", false
	}
	if major(artifact.Server) != major(port.Server) {
		return fmt.Sprintf("WARNING: the two variants ran on different PostgreSQL major versions: the %s ran on PostgreSQL %s, the %s ran on PostgreSQL %s; some differences below may come from the versions alone (privileges, deparsed definitions)",
			artifact.Name, artifact.Server, port.Name, port.Server), true
	}
	return fmt.Sprintf("the %s ran on PostgreSQL %s, the %s ran on PostgreSQL %s", artifact.Name, artifact.Server, port.Name, port.Server), false
}

// major is the major version of a server_version string ("15.14 (Debian 15.14-0+deb12u1)": "15").
func major(version string) string {
	v, _, _ := strings.Cut(version, ".")
	v, _, _ = strings.Cut(v, " ")
	return v
}
