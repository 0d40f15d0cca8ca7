package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/install"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/introspect"
)

// liveSide is a variant read from a database that holds it (its DSN) rather than installed.
type liveSide struct {
	snap    *introspect.Snapshot
	version string // the server's version ("15.14")
	where   string // user@host:port/dbname, for the report (no password)
}

// readLive reads the database at v.DSN: its catalog, in one REPEATABLE READ READ ONLY
// transaction (introspect.Take), and the server's version, which the server reports when the
// connection starts. Nothing is created, changed or set on that server outside the transaction,
// so the DSN's role needs only CONNECT and read access to the catalog.
func readLive(ctx context.Context, v Variant) (*liveSide, error) {
	cfg, err := pgx.ParseConfig(v.DSN)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("the dsn of the %s: %w", v.called(), err))
	}
	where := fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
	conn, err := introspect.Connect(ctx, v.DSN)
	if err != nil {
		return nil, fmt.Errorf("reading the %s from %s: %w", v.called(), where, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	snap, err := introspect.Take(ctx, conn, install.Normalizers(introspect.Options{}))
	if err != nil {
		return nil, fault.Env(fmt.Errorf("reading the %s from %s: %w", v.called(), where, err))
	}
	return &liveSide{snap: snap, version: versionOf(conn), where: where}, nil
}

// versionOf is the version of the server conn is connected to, as it reported it when the
// connection started: "15.14" of "15.14 (Debian 15.14-0+deb12u1)".
func versionOf(conn *pgx.Conn) string {
	v, _, _ := strings.Cut(conn.PgConn().ParameterStatus("server_version"), " ")
	return v
}

// called is how messages call the variant: "artifact", or "port NAME".
func (v Variant) called() string {
	if v.Name == "artifact" {
		return v.Name
	}
	return "port " + v.Name
}

// compared is the side of a comparison that r is: its install, or, for a variant read from a
// database, what that database holds of the objects that the installs of refs (the files of
// both sides) created or changed.
func (p *pipeline) compared(r *variantRun, refs []*introspect.Footprint) parity.Installed {
	in := r.installed
	if r.v.File == "" {
		in = parity.Installed{Name: r.v.Name, Dim: r.v.Dim}
	}
	if r.live == nil {
		in.Server = p.srv.Version()
		return in
	}
	in.Footprint = introspect.Deployed(r.live.snap, refs...)
	in.Live, in.Server = r.live.where, r.live.version
	return in
}
