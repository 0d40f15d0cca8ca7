package parity

import (
	"fmt"
	"slices"
	"strings"
)

// liveNotes are the notes of a comparison in which a variant was read from a database: where it
// came from, what a variant without its file cannot check, and the server versions of both variants
// (when they differ, [Compare] notes it first, whatever the variants); where the probes ran
// (probes) or why they were not compared (skipped, "" when they were).
func liveNotes(artifact, port Installed) (notes, probes []string, skipped string) {
	if artifact.Live == "" && port.Live == "" {
		return nil, nil, ""
	}
	if note, differ := versionNote(artifact, port); note != "" && !differ {
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
func filesOf(variants ...Installed) string {
	var files []string
	for _, in := range variants {
		if in.File != "" && !slices.Contains(files, in.File) {
			files = append(files, in.File)
		}
	}
	return strings.Join(files, " and ")
}
