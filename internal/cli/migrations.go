package cli

import (
	"context"
	"fmt"

	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/repository"
)

// migration sorts the migration of sidecar i of req (a Supabase project's migrations, check
// --changed): a file new since the merge base is checked (isNew); a file the merge base has and
// the branch changed is history edited (edited), a finding (req.Edited), and every
// migration after it is installed over its version at the merge base, the state the databases
// that ran it are in; an unchanged one is what the others are installed over. It reads the
// merge base's version as apply does ([changes.atBase]).
func (ch *changes) migration(ctx context.Context, req *repository.Request, i int) (isNew, edited bool) {
	r := &req.Sidecars[i].Request
	if !ch.changed(r.Artifact.File) {
		return false, false
	}
	rel, merged, err := ch.atBase(ctx, r.Artifact.File)
	if rel == "" {
		return false, false
	}
	if err != nil {
		r.Artifact.NoPrevious = fmt.Sprintf("%s is a new migration since %s (the merge base): it is checked over the migrations before it as the merge base has them", r.Artifact.File, ch.short)
		return true, false
	}
	req.Edited = append(req.Edited, repository.Edited{Sidecar: req.Sidecars[i].Name, File: r.Artifact.File, Base: ch.short, Merged: []byte(merged), Now: r.Artifact.Src})
	if len(merged) <= int(input.Migration.Limit) { // a larger one is not read: the edit is what is installed
		r.Artifact.Src = []byte(merged)
	}
	return false, true
}
