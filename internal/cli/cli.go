// Package cli implements the ledgercheck command line. [Run] is the whole program, callable
// in-process by tests; cmd/ledgercheck only calls it.
//
// Each command lives in its own file; [commands] lists them, in the order --help shows them.
// Commands map flags and configuration to a request of internal/gate and write its report to
// stdout only; progress and logs go to stderr. They hold no domain logic
// (docs/architecture.md).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// Exit codes, as documented in README.md ("Exit codes").
const (
	ExitOK       = 0 // passed
	ExitFindings = 1 // lint error, unreviewed difference, stale allowlist entry, failed rerun
	ExitInput    = 2 // usage, configuration or input error
	ExitEnv      = 3 // environment error: no Postgres, no pgvector, unreachable server
)

// gcPercent is the garbage collector's target (GOGC) unless the environment sets one. The largest
// heap ledgercheck builds is lint's model of a file, alive until the end, while parsing makes as
// much garbage again; Go's default of 100 lets the heap grow to twice the live data before it
// collects. At 50, 4 MiB of "SELECT 1;" peaks at 160 MB instead of 205 MB, for about 5% more CPU.
//
// Below heapFloor there is no collection at all (see [setGC]): with gcPercent alone the runtime
// starts at a 2 MB heap goal, and `lint testdata/corpus/*.sql` (4 MB allocated, 51 files) took 11
// collections, each about 3 ms of CPU on 2 cores (the idle core runs mark workers): a third of
// lint's CPU time, to keep a heap of a few MB. A warm `check` of the shipped pair allocates more
// than 64 MB in all (at a floor of 64 MB it collected at gcPercent for most of its run: 0.45 s of
// its own CPU); at 128 MB it spends 0.40 s (medians of 6 runs, 2026-12-05), its peak RSS 90 MB
// instead of 80, while linting 4 MB of "SELECT 1;" peaks where it did (154 MB against 150).
const (
	gcPercent = 50
	heapFloor = 128 << 20
)

// gcSwitch is the object whose finalizer, run after the first collection, switches the
// collector from the heap floor to gcPercent. It holds a pointer so that it is not a tiny
// allocation, whose finalizer may never run.
type gcSwitch struct{ _ *int }

// setGC lets the heap grow to heapFloor before the first collection, then collects at
// gcPercent, unless the environment sets GOGC or GOMEMLIMIT. The first collection comes from the
// memory limit (the collector is off until then); its finalizer lifts the limit and sets
// gcPercent, so a large file peaks where it did with gcPercent alone.
func setGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(heapFloor)
	runtime.SetFinalizer(&gcSwitch{}, func(*gcSwitch) {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// Version is the ledgercheck version: set at build time with -ldflags "-X
// github.com/ledgercheck/ledgercheck/internal/cli.Version=..." (make build, make dist), else the
// module version in the build info (`go install ...@v1.2.3` gives v1.2.3), else devVersion.
var Version = ""

// globals holds what every command shares: the I/O streams and the global flags.
type globals struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	quiet          bool
	// allowOutside is --allow-outside-repo: read files outside the repository (input.Scope).
	allowOutside bool
}

// scope is the repository of the working directory that the files named on the command line of
// a command without a configuration are confined to (see input.Scope).
func (g *globals) scope() input.Scope {
	return input.Scope{Root: input.RepoRoot("."), AllowOutside: g.allowOutside}
}

// logf writes a progress line to stderr unless --quiet is set, its control characters escaped
// (it names files and variants).
func (g *globals) logf(format string, args ...any) {
	if g.quiet {
		return
	}
	fmt.Fprintln(g.stderr, report.Visible(fmt.Sprintf(format, args...)))
}

// commands are the subcommands of ledgercheck, in the order --help lists them.
var commands = []func(*globals) *cobra.Command{
	newCheckCmd,
	newInitCmd,
	newLintCmd,
	newParityCmd,
	newAllowlistCmd,
	newRerunCmd,
	newSnapshotCmd,
	newEnvCmd,
	newCleanupCmd,
	newCacheCmd,
	newSetupCmd,
	newExplainCmd,
	newVersionCmd,
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "ledgercheck",
		Short: "Schema parity and lint checker for Supabase sidecar migrations",
		Long: `ledgercheck checks a Supabase "sidecar" migration (first of all the Open Brain decision
ledger) before it is merged: it lints the migration for the sidecar rules, installs it and a port
of it into throwaway Postgres databases that look like Supabase, diffs the two installs through a
reviewed allowlist, and proves that running the migration again changes nothing and loses nothing.

Exit codes: 0 passed (or checked nothing: the verdict then says SKIP); 1 findings; 2 usage,
configuration or input error; 3 environment error (no Postgres, no pgvector, unreachable
server), an interrupted run or an internal error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// commandError suggests a command, as flagError a flag.
		DisableSuggestions: true,
		Version:            buildVersion(),
	}
	root.SetVersionTemplate("ledgercheck {{.Version}}\n")
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "print no progress on stderr")
	root.PersistentFlags().BoolVar(&g.allowOutside, strings.TrimPrefix(input.AllowOutsideFlag, "--"), false, "read files that resolve outside the repository: paths in the configuration outside it, and symbolic links in it that lead out")
	root.SetFlagErrorFunc(flagError)
	for _, newCmd := range commands {
		root.AddCommand(newCmd(g))
	}
	argsInOwnWords(root)
	return root
}

// Run runs ledgercheck with args (without the program name) and returns the exit code.
// SIGINT and SIGTERM cancel the context given to commands, which then clean up and return; a
// command cut short that way exits 3 with "interrupted by SIGTERM" (a command that runs until
// interrupted, such as env up, returns nil and exits 0). A panic is recovered after the
// command's deferred cleanups have run (the scratch server stopped, its databases dropped) and
// reported as one "internal error" line, exit 3.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	setGC()
	// stderr lines name files: none may pass for a GitHub workflow command.
	logs := report.NewCommandFilter(stderr)
	defer logs.Flush()
	stderr = logs
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var err error
	defer func() { code = exitCode(interrupted(ctx, err), stderr) }()
	defer fault.Recover(&err)
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(g)
	root.SetArgs(args)
	err = commandError(root, root.ExecuteContext(ctx))
	return
}

// interrupted replaces the error of a command cut short by a signal with one that says so. A
// report printed before (findings) is not trusted either: statements cancelled by the signal may
// show up as findings.
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	var pe *fault.PanicError
	if errors.As(err, &pe) {
		return err
	}
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) && cause.Error() == context.Canceled.Error() {
		return err // cancelled by the caller, not by a signal
	}
	return fault.Env(fmt.Errorf("interrupted by %s; whatever this run started (scratch servers, databases) was removed", signalName(cause)))
}

// signalName names the signal in the cause signal.NotifyContext gives ("interrupt signal
// received" or "terminated signal received").
func signalName(cause error) string {
	msg := cause.Error()
	switch {
	case strings.Contains(msg, syscall.SIGINT.String()):
		return "SIGINT"
	case strings.Contains(msg, syscall.SIGTERM.String()):
		return "SIGTERM"
	}
	return "a signal"
}

// exitCode maps err to an exit code and prints it as one line on stderr.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, fault.ErrFindings) {
		return ExitFindings
	}
	var done exitReported
	if errors.As(err, &done) {
		return int(done)
	}
	msg := strings.TrimSpace(err.Error())
	code := ExitEnv
	var pe *fault.PanicError
	switch kind := fault.KindOf(err); {
	case errors.As(err, &pe):
		// A bug: exit 3 whatever the error around it says.
	case kind == fault.KindInput:
		code = ExitInput
	case kind == fault.KindEnv:
		code = ExitEnv
	default:
		// cobra's own usage errors (unknown command, bad args) are not classified.
		if isCobraUsage(msg) {
			code = ExitInput
		}
	}
	fmt.Fprintf(stderr, "ledgercheck: %s\n", oneLine(msg))
	return code
}

func isCobraUsage(msg string) bool {
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// maxErrorLine is the most characters of an error line: a server's error can be megabytes.
const maxErrorLine = 2000

// oneLine folds a multi-line message into one line, as every error ledgercheck prints is one
// line, of at most maxErrorLine characters, with its control characters escaped as the reports
// escape them (a file name or a server message may hold a terminal escape).
func oneLine(s string) string {
	return report.Clip(report.Visible(strings.Join(strings.Fields(report.Clip(s, 2*maxErrorLine)), " ")), maxErrorLine)
}
