package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/setup"
)

// setupLong is setup's --help.
const setupLong = `setup installs what the embedded throwaway cluster needs, skipping what is present: PostgreSQL
15 (or 17, --pg 17) and its server headers, pgvector, ledgercheck's guard module (PostgreSQL 15
only) and bubblewrap, on Debian 12 and on Ubuntu 22.04 and 24.04 (GitHub's hosted runners:
PostgreSQL from the PostgreSQL project's apt repository). The binary carries everything it builds
and installs from (the install script, the guard's C source), so it needs no checkout of
ledgercheck; in a checkout, make setup runs the same script.

As root it installs. As another user it changes nothing and prints the commands to run as root,
ready to paste (the files they name are kept under the user's cache directory), and exits 3. On
another system it changes nothing and says in one line what is missing and how to provide it;
--dsn URL with a server of your own needs none of it. --check installs nothing: it says "nothing
to do" (exit 0), or in one line what is missing (exit 3). PostgreSQL versions ledgercheck does
not run (16, ...) are refused (exit 2).

--container NAME loads the guard into a running PostgreSQL 15 container of the official postgres
image family (pgvector/pgvector:0.8.0-pg15, a CI service container) for --dsn runs: it installs the
compiler and server headers inside, builds the guard there, preloads it and restarts the container
(docker on PATH, or $DOCKER). On 17 it does nothing.`

// setupFlags are the flags of the setup command.
type setupFlags struct {
	pg        int
	check     bool
	container string
}

func newSetupCmd(g *globals) *cobra.Command {
	f := &setupFlags{}
	cmd := &cobra.Command{
		Use:   "setup [--pg 15|17] [--check] [--container NAME]",
		Short: "Install PostgreSQL, pgvector, the guard and bubblewrap for the embedded cluster, or print the commands",
		Long:  setupLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd, g) },
	}
	cmd.Flags().IntVar(&f.pg, "pg", 0, "PostgreSQL major version to install for: 15 (default) or 17 ($"+scratch.VersionEnv+" when not given)")
	cmd.Flags().BoolVar(&f.check, "check", false, "install nothing: say what is missing, in one line (exit 3), or nothing to do (exit 0)")
	cmd.Flags().StringVar(&f.container, "container", "", "load the guard into this running PostgreSQL 15 container instead (for --dsn runs)")
	return cmd
}

// run runs setup's script, from the files the binary carries.
func (f *setupFlags) run(cmd *cobra.Command, g *globals) error {
	major, err := scratch.RequestedVersion(f.pg)
	if err != nil {
		return err
	}
	if major == 0 {
		major = scratch.Versions[0]
	}
	if f.check && f.container != "" {
		return fault.Input(errors.New("--check and --container: give one of them"))
	}
	dir, cleanup, err := setup.Prepare(os.Geteuid() == 0)
	if err != nil {
		return fault.Env(err)
	}
	defer cleanup()
	err = setup.Run(cmd.Context(), setup.Options{Dir: dir, Postgres: major, Check: f.check, Container: f.container,
		Command: setupCommand(major), Stdout: g.stdout, Stderr: g.stderr})
	var se *setup.ScriptExit
	switch {
	case errors.As(err, &se) && se.Code == 2:
		return reported(ExitInput)
	case errors.As(err, &se):
		return reported(ExitEnv) // the script said what is missing, or what to run as root
	case err != nil:
		return fault.Env(err)
	}
	return nil
}

// setupCommand is the command line that runs this setup again, as the script's messages name it:
// this binary's path and the version's flag.
func setupCommand(major int) string {
	self, err := os.Executable()
	if err != nil {
		self = "ledgercheck"
	}
	c := setup.Quote(self) + " setup"
	if major != scratch.Versions[0] {
		c += " --pg " + strconv.Itoa(major)
	}
	return c
}

// exitReported is an exit code whose reason was already said (on stdout or stderr): exitCode
// prints nothing more for it.
type exitReported int

func (e exitReported) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// reported returns the error that exits with code and prints nothing.
func reported(code int) error { return exitReported(code) }
