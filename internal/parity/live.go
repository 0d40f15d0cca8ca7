package parity

import (
	"fmt"
	"slices"
	"strings"
)

// liveNotes are the notes of a comparison in which a side was read from a database: where it
// came from, the server versions of both sides (prominently when their major versions differ),
// what a side without its file cannot check, where the probes ran (probes) or why they were not
// compared (skipped, "" when they were).
func liveNotes(artifact, port Installed) (notes, probes []string, skipped string) {
	if artifact.Live == "" && port.Live == "" {
		return nil, nil, ""
	}
	if note, differ := versionNote(artifact, port); differ {
		notes = append(notes, note)
	} else if note != "" {
		defer func() { notes = append(notes, note) }()
	}
	for _, in := range []Installed{artifact, port} {
		if in.Live == "" {
			continue
		}
		notes = append(notes, fmt.Sprintf("the %s was read from the database %s, read-only: what it holds of the objects that installing %s created or changed, and of what is attached to them (everything else in that database is out of scope)",
			called(in.Name), in.Live, filesOf(artifact, port)))
		if in.Source == nil {
			notes = append(notes, fmt.Sprintf("signature typmods of the %s could not be verified: pg_proc keeps none, and no file of it was given (with its file, the declared signatures come from the file); objects only its own file creates are not looked up either, so an allowlist entry for one is stale", called(in.Name)))
			skipped = fmt.Sprintf("not run: the %s is read from a database without its file, and probes need a scratch install with the fixture", called(in.Name))
		} else {
			probes = append(probes, fmt.Sprintf("the %s's probes ran on its file %s installed in a scratch database with the fixture: the database %s is only read", called(in.Name), in.File, in.Live))
		}
	}
	return notes, probes, skipped
}

// filesOf names the files whose installs define what is compared.
func filesOf(sides ...Installed) string {
	var files []string
	for _, in := range sides {
		if in.File != "" && !slices.Contains(files, in.File) {
			files = append(files, in.File)
		}
	}
	return strings.Join(files, " and ")
}

// versionNote says which server version each side ran on or was read from, and whether their
// major versions differ. Differences that only the version makes (a privilege one version has,
// a definition deparsed differently) are reported like any other; the note says to expect them.
func versionNote(artifact, port Installed) (note string, differ bool) {
	if artifact.Server == "" || port.Server == "" {
		return "", false
	}
	where := func(in Installed) string {
		if in.Live != "" {
			return "was read from PostgreSQL " + in.Server
		}
		return "ran on PostgreSQL " + in.Server
	}
	if major(artifact.Server) != major(port.Server) {
		return fmt.Sprintf("WARNING: the two sides ran on different PostgreSQL major versions: the %s %s, the %s %s; some differences below may come from the versions alone (privileges, deparsed definitions)",
			called(artifact.Name), where(artifact), called(port.Name), where(port)), true
	}
	return fmt.Sprintf("the %s %s, the %s %s", called(artifact.Name), where(artifact), called(port.Name), where(port)), false
}

// major is the major version of a server_version string ("15.14 (Debian 15.14-0+deb12u1)": "15").
func major(version string) string {
	v, _, _ := strings.Cut(version, ".")
	v, _, _ = strings.Cut(v, " ")
	return v
}
