package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// serverFlags are the flags of every command that needs Postgres.
type serverFlags struct {
	pg               int
	pgBin            string
	dsn              string
	statementTimeout time.Duration
	lockTimeout      time.Duration
	installTimeout   time.Duration
	noCache          bool
	// The run's resource limits (0: scratch's defaults).
	scratchSize, serverMemory, readSize config.Size
}

func addServerFlags(cmd *cobra.Command, f *serverFlags) {
	cmd.Flags().IntVar(&f.pg, "pg", 0, "PostgreSQL major version to run on, 15 or 17 (default: postgres: in the configuration, for the commands that read one, else $LEDGERCHECK_PG, else 15); a --dsn server must run it")
	cmd.Flags().StringVar(&f.pgBin, "pg-bin", "", "directory of the PostgreSQL server binaries, instead of --pg's (15: /usr/lib/postgresql/15/bin, 17: /usr/local/lib/postgresql/17/bin; with no version asked for: $LEDGERCHECK_PG_BIN, else pg_config --bindir, else 15's)")
	cmd.Flags().StringVar(&f.dsn, "dsn", "", "use this existing server instead of an embedded cluster; its role must be a superuser. ledgercheck creates databases and a login role of its own there (ledgercheck_<run id>...), runs user SQL only in them and only as that role, and drops them afterwards")
	cmd.Flags().DurationVar(&f.statementTimeout, "statement-timeout", 60*time.Second, "statement_timeout for every statement of user SQL")
	cmd.Flags().DurationVar(&f.lockTimeout, "lock-timeout", 10*time.Second, "lock_timeout for every statement of user SQL")
	cmd.Flags().BoolVar(&f.noCache, "no-cache", false, "neither read nor write the cache of initialized clusters and templates across runs (see ledgercheck cache --help); the embedded cluster is then built from scratch")
	cmd.Flags().DurationVar(&f.installTimeout, "install-timeout", 120*time.Second, "time limit for installing one file (a migration, fixture or probe script) as a whole")
	f.scratchSize, f.serverMemory, f.readSize = scratch.DefaultScratchSize, scratch.DefaultServerMemory, scratch.DefaultReadSize
	cmd.Flags().Var(&f.scratchSize, "scratch-size", "most the embedded cluster's directory may hold (each file, temporary files, the whole directory); a statement past it is a resource-limit finding")
	cmd.Flags().Var(&f.serverMemory, "server-memory", "memory (address space) each process of the embedded server may have; an allocation past it is a resource-limit finding")
	cmd.Flags().Var(&f.readSize, "read-size", "largest message ledgercheck reads from the server (a catalog query's result such as every function body, a row); a larger one is a resource-limit finding")
}

// applyLimits takes the time limits of ledgercheck.yaml for the flags the user did not set.
func (f *serverFlags) applyLimits(fl *pflag.FlagSet, l config.Limits) {
	if !fl.Changed("statement-timeout") && l.StatementTimeout > 0 {
		f.statementTimeout = l.StatementTimeout
	}
	if !fl.Changed("lock-timeout") && l.LockTimeout > 0 {
		f.lockTimeout = l.LockTimeout
	}
	if !fl.Changed("install-timeout") && l.InstallTimeout > 0 {
		f.installTimeout = l.InstallTimeout
	}
	for _, x := range []struct {
		flag string
		dst  *config.Size
		v    config.Size
	}{{"scratch-size", &f.scratchSize, l.ScratchSize}, {"server-memory", &f.serverMemory, l.ServerMemory}, {"read-size", &f.readSize, l.ReadSize}} {
		if !fl.Changed(x.flag) && x.v > 0 {
			*x.dst = x.v
		}
	}
}

// limits returns the run's resource limits the flags (and the configuration they took) set,
// refusing one below 1MB.
func (f *serverFlags) limits() (scratch.Limits, error) {
	for _, x := range []struct {
		flag string
		v    config.Size
	}{{"scratch-size", f.scratchSize}, {"server-memory", f.serverMemory}, {"read-size", f.readSize}} {
		if x.v < 1<<20 {
			return scratch.Limits{}, fault.Input(fmt.Errorf("--%s %s: want at least 1MB", x.flag, x.v))
		}
	}
	return scratch.Limits{ScratchSize: int64(f.scratchSize), ServerMemory: int64(f.serverMemory), ReadSize: int64(f.readSize)}, nil
}

// applyPostgres takes the configuration's postgres: version when the user did not set --pg, and
// refuses a --pg ledgercheck does not support before anything runs.
func (f *serverFlags) applyPostgres(fl *pflag.FlagSet, major int) error {
	if !fl.Changed("pg") {
		f.pg = major
		return nil
	}
	_, err := f.postgres()
	return err
}

// postgres is the PostgreSQL major version the flags (and the configuration they took) ask for,
// else $LEDGERCHECK_PG's, else 0.
func (f *serverFlags) postgres() (int, error) { return scratch.RequestedVersion(f.pg) }

// startServer starts the scratch server the flags describe, logging progress to stderr; an
// embedded cluster and the templates the run will use come from the cache unless --no-cache.
func (g *globals) startServer(ctx context.Context, f *serverFlags, templates []scratch.TemplateSpec) (*scratch.Server, error) {
	limits, err := f.limits()
	if err != nil {
		return nil, err
	}
	opts := scratch.Options{Postgres: f.pg, PGBin: f.pgBin, DSN: f.dsn, StatementTimeout: f.statementTimeout, LockTimeout: f.lockTimeout, InstallTimeout: f.installTimeout,
		Cache: !f.noCache, Templates: templates, Limits: limits}
	if !g.quiet {
		opts.Log = g.stderr
	}
	return scratch.Start(ctx, opts)
}
