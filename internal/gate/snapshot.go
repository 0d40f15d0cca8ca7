package gate

import (
	"context"

	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/sqlscript"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// SnapshotRequest is the snapshot command's: a catalog snapshot of the database at DSN (only
// read), or of a scratch database with the environment and prerequisites at Dim, after installing
// Install when it is set (with the footprint of that install).
type SnapshotRequest struct {
	DSN     string
	Install *SQLFile
	Dim     int
	// Options select what the snapshot includes; function bodies are normalized by ledgercheck's
	// parser.
	Options introspect.Options
	// Start starts the scratch server (not called with DSN), given the template the database
	// copies, for the cache; Logf receives progress lines.
	Start func(ctx context.Context, templates []scratch.TemplateSpec) (*scratch.Server, error)
	Logf  func(format string, args ...any)
}

// SnapshotResult is the snapshot and, after an install, its footprint.
type SnapshotResult struct {
	Snapshot  *introspect.Snapshot
	Footprint *introspect.Footprint
}

// Snapshot takes the snapshot a request asks for. A migration that does not install is its
// error (see [InstallFinding]).
func Snapshot(ctx context.Context, req SnapshotRequest) (*SnapshotResult, error) {
	logf := req.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	opts := install.Normalizers(req.Options)
	if req.DSN != "" && req.Install == nil {
		logf("snapshot: reading the database at --dsn (read-only)")
		s, err := introspect.TakeURL(ctx, req.DSN, opts)
		if err != nil {
			return nil, err
		}
		return &SnapshotResult{Snapshot: s}, nil
	}
	srv, err := req.Start(ctx, []scratch.TemplateSpec{{Dim: req.Dim}})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	db, err := srv.NewDatabase(ctx, req.Dim)
	if err != nil {
		return nil, err
	}
	res := &SnapshotResult{}
	if req.Install == nil {
		res.Snapshot, err = install.Snapshot(ctx, db, opts)
		return res, err
	}
	logf("snapshot: installing %s at dimension %d", req.Install.Name, req.Dim)
	f, err := sqlscript.Parse(req.Install.Name, req.Install.Src, req.Dim)
	if err != nil {
		return nil, err
	}
	res.Footprint, res.Snapshot, err = install.Footprint(ctx, db, sqlscript.Script(f), nil, opts)
	return res, err
}
