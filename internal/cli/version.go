package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// devVersion is the version of a build that was given none and whose build info has none (go
// run, go build -buildvcs=false in a checkout).
const devVersion = "0.1.0-dev"

// Commit and Date are the VCS revision and commit time the binary was built from, set at build
// time like [Version] (-X ...cli.Commit=... -X ...cli.Date=...); empty, they come from the build
// info's vcs.revision and vcs.time when it has them.
var Commit, Date string

// modified says whether the work tree had changes when the binary was built (vcs.modified).
var modified bool

func init() {
	bi, _ := debug.ReadBuildInfo()
	Version, Commit, Date, modified = stamp(Version, Commit, Date, bi)
}

// stamp returns the version, commit, date and modified flag of a build: the values set at link
// time win, the build info (nil: none) fills in the rest. A module version of "(devel)" (a build
// in a checkout without VCS information) is no version.
func stamp(version, commit, date string, bi *debug.BuildInfo) (string, string, string, bool) {
	var mod bool
	if bi != nil {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					commit = s.Value
				}
			case "vcs.time":
				if date == "" {
					date = s.Value
				}
			case "vcs.modified":
				mod = s.Value == "true"
			}
		}
	}
	if version == "" {
		version = devVersion
	}
	return version, commit[:min(12, len(commit))], date, mod
}

// pgQueryModule is the module of ledgercheck's SQL parser, whose version the build info holds.
const pgQueryModule = "github.com/pganalyze/pg_query_go/v5"

// versionInfo is what `ledgercheck version` prints, and its JSON document (--json).
type versionInfo struct {
	Ledgercheck string `json:"ledgercheck"`
	// Commit and Modified are the VCS revision the binary was built from and whether the work
	// tree had changes (empty and false when the build has no VCS information, as `go run`).
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Date is the commit's time (RFC 3339), when the build has it.
	Date     string `json:"date,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	// PgQuery is pg_query_go's module version, and ParserGrammar the PostgreSQL major whose
	// grammar it parses.
	PgQuery       string `json:"pg_query_go"`
	ParserGrammar int    `json:"parser_grammar"`
	// Supported are the PostgreSQL majors ledgercheck runs; Found, for each, the server binaries
	// the embedded mode would use (without --pg-bin), or why there are none.
	Supported []int         `json:"postgres_supported"`
	Found     []postgresBin `json:"postgres_found"`
}

// postgresBin is one supported major's server binaries on this machine.
type postgresBin struct {
	Major   int    `json:"major"`
	Version string `json:"version,omitempty"`
	BinDir  string `json:"bin_dir,omitempty"`
	Error   string `json:"error,omitempty"`
}

// buildVersion is the first line of `ledgercheck version` and all of `ledgercheck --version`:
// the version and, when the build has them, the commit, its date and whether the tree was
// modified.
func buildVersion() string {
	v := versionInfo{Ledgercheck: Version, Commit: Commit, Date: Date, Modified: modified}
	return v.line()
}

func (v *versionInfo) line() string {
	var details []string
	if v.Commit != "" {
		details = append(details, "commit "+v.Commit)
	}
	if v.Date != "" {
		details = append(details, v.Date)
	}
	if v.Modified {
		details = append(details, "modified")
	}
	if len(details) == 0 {
		return v.Ledgercheck
	}
	return v.Ledgercheck + " (" + strings.Join(details, ", ") + ")"
}

// fromBuildInfo fills in pg_query_go's version from the binary's build info.
func (v *versionInfo) fromBuildInfo() {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, d := range bi.Deps {
		if d.Path == pgQueryModule {
			v.PgQuery = d.Version
			if d.Replace != nil {
				v.PgQuery = d.Replace.Version
			}
		}
	}
}

// collectVersion gathers everything `ledgercheck version` reports, the server binaries found
// included (each asked for its version: `postgres --version`).
func collectVersion() versionInfo {
	v := versionInfo{
		Ledgercheck: Version, Commit: Commit, Date: Date, Modified: modified, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		PgQuery: "unknown", ParserGrammar: pgsql.GrammarVersion, Supported: scratch.Versions,
	}
	v.fromBuildInfo()
	for _, major := range scratch.Versions {
		pb := postgresBin{Major: major}
		dir, err := scratch.FindBinDir("", major)
		if err == nil {
			pb.BinDir = dir
			pb.Version, err = scratch.BinVersion(dir)
		}
		if err != nil {
			pb.Error = err.Error()
		}
		v.Found = append(v.Found, pb)
	}
	return v
}

func newVersionCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of ledgercheck, Go, its SQL parser and the PostgreSQL servers found",
		Long: `version prints ledgercheck's version (stamped by make build or make dist, or the module version
of go install ...@VERSION) and the commit it was built from with its date, the Go version, the
version of pg_query_go (the SQL parser, PostgreSQL 16's grammar), the PostgreSQL major versions
ledgercheck runs, and for each the server binaries the embedded mode would use (without
--pg-bin). --json prints the same as one JSON object. ledgercheck --version prints the first line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := collectVersion()
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "ledgercheck %s\n", v.line())
			fmt.Fprintf(&b, "go: %s %s\n", v.Go, v.Platform)
			fmt.Fprintf(&b, "pg_query_go: %s (PostgreSQL %d's grammar)\n", v.PgQuery, v.ParserGrammar)
			majors := make([]string, len(v.Supported))
			for i, m := range v.Supported {
				majors[i] = strconv.Itoa(m)
			}
			fmt.Fprintf(&b, "PostgreSQL supported: %s\n", strings.Join(majors, ", "))
			for _, f := range v.Found {
				if f.Error != "" {
					fmt.Fprintf(&b, "PostgreSQL %d: not found: %s\n", f.Major, f.Error)
				} else {
					fmt.Fprintf(&b, "PostgreSQL %d: %s (%s)\n", f.Major, f.Version, f.BinDir)
				}
			}
			_, err := fmt.Fprint(g.stdout, b.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}
