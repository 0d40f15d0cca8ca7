package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/diff"
	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/parity"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

func newAllowlistCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "allowlist",
		Short: "Work with allowlist.yaml, the reviewed differences between the artifact and a port",
		Long: `allowlist.yaml lists the differences between the two installs that a reviewer accepted, each with a
reason. See ` + "`ledgercheck allowlist suggest --help`" + ` and ` + "`ledgercheck allowlist check --help`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newAllowlistSuggestCmd(g), newAllowlistCheckCmd(g))
	return cmd
}

func newAllowlistSuggestCmd(g *globals) *cobra.Command {
	var (
		pf         parityFlags
		all, write bool
	)
	cmd := &cobra.Command{
		Use:   "suggest",
		Short: "Print candidate allowlist entries (reason: TODO) for the current differences, or merge them into the allowlist (--write)",
		Long: `suggest runs the parity comparison of one port (same configuration and flags as
` + "`ledgercheck parity`" + `; with several configured ports, choose one with --only NAME) and prints an
allowlist with one entry per semantic difference that the current allowlist does not accept (with
--all: per semantic difference), every reason "TODO". The gate rejects TODO, so the entries only
count once a person has reviewed each difference and written why it is accepted. Short values are
pinned as artifact/port (expected/found for a dimension mismatch), long ones (bodies, listings, probe results) by digest. Probes whose
differences have the same likely cause (the catalog differences of what their SQL reads, such as
a changed default of the function they call) share one entry: kind probe, the cause, and a probes
list with each probe's digest.

--write merges into the port's allowlist file instead (--allowlist FILE, or the configured one;
created when missing), editing the YAML tree so that every entry it keeps keeps its reason and its
comments:
  - an entry that still accepts its difference is left as it is;
  - an entry whose difference changed since review (same kind, object and attribute, other
    values) gets the new values and the reason "TODO changed since review: " + the reviewed
    reason, which the gate rejects until a person has looked again and removed the TODO;
  - a stale entry (it accepts no difference) is removed, and listed;
  - every new difference gets an entry with reason TODO, at the end.
Beside the allowlist it writes allowlist.reviewed.yaml (for allowlist.yaml): the texts of the
entries pinned by digest (bodies, definitions), so that a later change since review is shown
against them. Commit it with the allowlist; it decides nothing.
It prints what it kept, updated, removed and added; review with ` + "`git diff`" + `, write the reasons, and
run ` + "`ledgercheck parity`" + `. An allowlist with TODO reasons is read (suggest runs on drafts); the gate
rejects it.

Exit 0 when it printed the suggestions or wrote the file; 2 and 3 as for parity.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := pf.loadConfig(cmd, g)
			if err != nil {
				return err
			}
			if len(cfg.Ports) != 1 {
				return fault.Input(fmt.Errorf("allowlist suggest compares one port with the artifact, and the configuration has %d (%s): pass --only NAME, or --port FILE --port-dim N", len(cfg.Ports), cfg.PortNames()))
			}
			path := cfg.Ports[0].Allowlist
			if write && path == "" {
				return fault.Input(fmt.Errorf("--write: the port %s has no allowlist file; name one with --allowlist FILE", cfg.Ports[0].Name))
			}
			var src []byte
			var al *allowlist.File
			if path != "" {
				src, err = cfg.Scope.ReadFile(path, input.Allowlist)
				switch {
				case errors.Is(err, fs.ErrNotExist) && write: // created
				case err != nil:
					return fault.Input(err)
				default:
					if al, err = allowlist.ParseDraft(path, src); err != nil {
						return err
					}
					if err := attachReviewed(cfg.Scope, path, al); err != nil {
						return err
					}
				}
			}
			cfg.Ports[0].Allowlist = "" // read above, as a draft
			res, err := runGateParityWith(cmd, g, &pf, cfg, al)
			if err != nil {
				return err
			}
			rep := res.Parity[0]
			if rep == nil { // a variant does not install: nothing to compare
				for _, ph := range res.Report.Phases {
					for _, f := range ph.Findings {
						fmt.Fprintf(g.stderr, "ledgercheck: %s\n", oneLine(f.String()))
					}
				}
				return fault.ErrFindings
			}
			if write {
				return writeAllowlist(g, cfg.Scope, path, al, src, rep)
			}
			return allowlist.Suggest(g.stdout, rep.ToSuggest(all), rep.ProbeCauses)
		},
	}
	addParityFlags(cmd, &pf)
	cmd.Flags().BoolVar(&all, "all", false, "suggest an entry for every semantic difference, accepted ones included")
	cmd.Flags().BoolVar(&write, "write", false, "merge into the allowlist file (--allowlist FILE, or the port's): keep reviewed entries, update changed ones, remove stale ones, add TODO entries")
	cmd.MarkFlagsMutuallyExclusive("all", "write")
	return cmd
}

// writeAllowlist merges the comparison into the allowlist at path and says what changed.
func writeAllowlist(g *globals, scope input.Scope, path string, al *allowlist.File, src []byte, rep *parity.Report) error {
	o := rep.Outcome
	if al != nil && al.Version == allowlist.Version && o.Passed() {
		fmt.Fprintf(g.stdout, "%s: up to date (%d entries, every difference accepted)\n", path, len(al.Entries))
		return writeReviewed(g, scope, path, src, al, rep.Differences)
	}
	out, m, err := allowlist.Merge(al, src, o, rep.ProbeCauses)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, out); err != nil {
		return fault.Input(err)
	}
	if err := writeReviewed(g, scope, path, out, al, rep.Differences); err != nil {
		return err
	}
	w := g.stdout
	fmt.Fprintf(w, "%s: %d entries kept, %d changed since review, %d stale removed, %d added (reason TODO)\n", path, m.Kept, len(m.Updated), len(m.Removed), len(m.Added))
	for _, e := range m.Removed {
		fmt.Fprintf(w, "  removed  line %d: %s (it accepts no difference; its reason was: %s)\n", e.Line, e.String(), report.Clip(oneLine(e.Reason), 120))
	}
	for _, c := range m.Updated {
		fmt.Fprintf(w, "  changed  line %d: %s (new values pinned; reason now starts with TODO)\n", c.Entry.Line, c.Entry.String())
	}
	for _, e := range m.Added {
		line := "  added    " + e.String()
		if e.Cause != "" {
			line += " (likely cause: " + e.Cause + ")"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Review the differences (`ledgercheck parity`, `git diff %s`), replace each TODO with the reason it is accepted, then run the gate.\n", path)
	return nil
}

// writeFileAtomic replaces path with data (a temporary file in its directory, renamed), keeping
// an existing file's permissions.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".allowlist-*.yaml")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// loadAllowlist is allowlist.Load of a file read through scope, with its reviewed values.
func loadAllowlist(scope input.Scope, path string) (*allowlist.File, error) {
	data, err := scope.ReadFile(path, input.Allowlist)
	if err != nil {
		return nil, fault.Input(err)
	}
	f, err := allowlist.Parse(path, data)
	if err != nil {
		return nil, err
	}
	return f, attachReviewed(scope, path, f)
}

// attachReviewed gives f's entries pinned by digest their values from the reviewed file beside
// it (allowlist.ReviewedPath), when there is one.
func attachReviewed(scope input.Scope, path string, f *allowlist.File) error {
	rp := allowlist.ReviewedPath(path)
	data, err := scope.ReadFile(rp, input.Allowlist)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fault.Input(err)
	}
	return f.AttachReviewed(rp, data)
}

// writeReviewed writes the reviewed file of the allowlist at path after suggest --write (the
// merged allowlist's content, the one before, the comparison's differences), and says so when
// it changed.
func writeReviewed(g *globals, scope input.Scope, path string, merged []byte, previous *allowlist.File, diffs []diff.Difference) error {
	m, err := allowlist.ParseDraft(path, merged)
	if err != nil {
		return err
	}
	out, ok, err := allowlist.ReviewedFile(m, previous, diffs)
	if err != nil || !ok {
		return err
	}
	rp := allowlist.ReviewedPath(path)
	if old, err := scope.ReadFile(rp, input.Allowlist); err == nil && bytes.Equal(old, out) {
		return nil
	}
	if err := writeFileAtomic(rp, out); err != nil {
		return fault.Input(err)
	}
	fmt.Fprintf(g.stdout, "%s: the texts of the entries pinned by digest, as reviewed (commit it with the allowlist)\n", rp)
	return nil
}

func newAllowlistCheckCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Validate an allowlist file without a database (syntax, reasons, duplicates, patterns)",
		Long: `check decodes FILE strictly, as parity does: unknown keys, a version other than 2 (or 1, read with a hint to convert), entries that do not
pin their values, malformed digests or object_match patterns, empty or TODO reasons and
duplicates are errors printed as file:line, one line per invalid entry, every one of them
(exit 2). Whether entries are stale needs the
installs: run ` + "`ledgercheck parity`" + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := loadAllowlist(g.scope(), args[0])
			var invalid *allowlist.InvalidError
			if errors.As(err, &invalid) && len(invalid.Lines) > 1 {
				for _, line := range invalid.Lines {
					fmt.Fprintf(g.stderr, "ledgercheck: %s\n", oneLine(line))
				}
				return fault.Input(fmt.Errorf("%s: %d invalid entries", args[0], len(invalid.Lines)))
			}
			if err != nil {
				return err
			}
			if f == nil {
				return fault.Input(fmt.Errorf("%s: empty allowlist", args[0]))
			}
			fmt.Fprintf(g.stdout, "%s: %d entries, valid\n", args[0], len(f.Entries))
			return nil
		},
	}
}
