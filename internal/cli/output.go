package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/report"
)

// reportFormats are the formats of a report of findings (check, lint, parity, rerun).
var reportFormats = []string{"text", "json", "sarif", "github", "html"}

// formatFlag is --format, the one flag type of every command's output format: a closed set whose
// error lists the choices.
type formatFlag struct {
	value   string
	choices []string
}

func (f *formatFlag) String() string { return f.value }
func (f *formatFlag) Type() string   { return "format" }
func (f *formatFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.value = s
			return nil
		}
	}
	return fmt.Errorf("%q is not a format; want one of %s", s, strings.Join(f.choices, ", "))
}

// outputFlags are --format and --color, and where the github format appends its job summary:
// the one writer path of every command that reports findings.
type outputFlags struct {
	format formatFlag
	color  string
	// compactText writes the text format as one line per finding (file:line:col: severity:
	// message [rule]), the form editors and pre-commit hooks read: lint's.
	compactText bool
	// githubSummaryEnv names the variable holding the job summary file ($GITHUB_STEP_SUMMARY).
	githubSummaryEnv string
	// repoRoot is --repo-root (see [repoRoot]).
	repoRoot string
}

func newOutputFlags() outputFlags {
	return outputFlags{format: formatFlag{value: "text", choices: reportFormats}, color: "auto", githubSummaryEnv: "GITHUB_STEP_SUMMARY"}
}

func (o *outputFlags) add(cmd *cobra.Command) {
	cmd.Flags().Var(&o.format, "format", "output format: "+strings.Join(reportFormats, ", "))
	cmd.Flags().StringVar(&o.color, "color", "auto", "color the text format: auto (a terminal and NO_COLOR unset), always or never")
	cmd.Flags().StringVar(&o.repoRoot, "repo-root", "", "the directory sarif and github locations are relative to (default: the git top level of the working directory, else the working directory)")
}

func (o *outputFlags) validate() error {
	if o.color != "auto" && o.color != "always" && o.color != "never" {
		return fault.Input(fmt.Errorf("--color %q: want auto, always or never", o.color))
	}
	return nil
}

// render prints the report in the chosen format (for github it also appends the markdown
// summary to $GITHUB_STEP_SUMMARY when that is set) and returns [fault.ErrFindings] when the
// report fails the gate.
func (o *outputFlags) render(g *globals, rep *report.Report) error {
	rep.Root = repoRoot(o.repoRoot)
	if err := o.write(g, rep); err != nil {
		return err
	}
	if rep.Failed() {
		return fault.ErrFindings
	}
	return nil
}

func (o *outputFlags) write(g *globals, rep *report.Report) error {
	switch o.format.value {
	case "json":
		return report.WriteReportJSON(g.stdout, rep)
	case "sarif":
		return report.WriteSARIF(g.stdout, rep)
	case "html":
		return report.WriteHTML(g.stdout, rep)
	case "github":
		if err := report.WriteGitHub(g.stdout, rep); err != nil {
			return err
		}
		if path := os.Getenv(o.githubSummaryEnv); path != "" {
			sf, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return fault.Env(fmt.Errorf("$%s: %w", o.githubSummaryEnv, err))
			}
			werr := report.WriteStepSummary(sf, rep)
			if cerr := sf.Close(); werr == nil {
				werr = cerr
			}
			return werr
		}
		return nil
	}
	if o.compactText {
		return report.WriteText(g.stdout, rep.Findings())
	}
	return report.WriteReportText(g.stdout, rep, useColor(o.color, g.stdout))
}

// useColor is the one colour decision of every command: always, never, or (auto) when w is a
// terminal, NO_COLOR is unset or empty and TERM is not "dumb".
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
