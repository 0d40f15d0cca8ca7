package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// reportFormats are the formats of a report of findings (check, lint, parity, rerun).
var reportFormats = []string{"text", "json", "sarif", "github", "html"}

// formatFlag is --format, the one flag type of every command's output format: a closed set whose
// error lists the choices.
type formatFlag struct {
	value   string
	choices []string
	// set: the flag was given (an --output FORMAT=- may not contradict it).
	set bool
}

func (f *formatFlag) String() string { return f.value }
func (f *formatFlag) Type() string   { return "format" }
func (f *formatFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.value, f.set = s, true
			return nil
		}
	}
	return fmt.Errorf("%q is not a format; want one of %s", s, strings.Join(f.choices, ", "))
}

// outputFile is one --output FORMAT=PATH: the report in that format, written to PATH.
type outputFile struct {
	format, path string
}

// stdoutPath is the --output path that means stdout, as for most tools: FORMAT=- is --format
// FORMAT.
const stdoutPath = "-"

// outputsFlag is --output, repeatable: FORMAT=PATH (PATH - for stdout), FORMAT one of choices. Its errors are input
// errors (exit 2) raised while the flags are parsed, before anything runs.
type outputsFlag struct {
	files   []outputFile
	choices []string
}

func (f *outputsFlag) String() string {
	s := make([]string, len(f.files))
	for i, o := range f.files {
		s[i] = o.format + "=" + o.path
	}
	return strings.Join(s, ",")
}
func (f *outputsFlag) Type() string { return "FORMAT=PATH" }
func (f *outputsFlag) Set(s string) error {
	format, path, ok := strings.Cut(s, "=")
	if !ok || path == "" {
		return fmt.Errorf("%q: want FORMAT=PATH, FORMAT one of %s", s, strings.Join(f.choices, ", "))
	}
	if !slices.Contains(f.choices, format) {
		return fmt.Errorf("%q: %q is not a format; want one of %s", s, format, strings.Join(f.choices, ", "))
	}
	for _, o := range f.files {
		if filepath.Clean(o.path) == filepath.Clean(path) {
			if path == stdoutPath {
				return fmt.Errorf("%q: stdout is already the output of %s", s, o.format)
			}
			return fmt.Errorf("%q: %s is already the output of %s", s, path, o.format)
		}
	}
	f.files = append(f.files, outputFile{format: format, path: path})
	return nil
}

// outputFlags are --format (stdout), --output (files) and --color, and where the github format
// appends its job summary: the one writer path of every command that reports findings.
type outputFlags struct {
	format  formatFlag
	outputs outputsFlag
	color   string
	// compactText writes the text format as one line per finding (file:line:col: severity:
	// message [rule]), the form editors and pre-commit hooks read: lint's.
	compactText bool
	// githubSummaryEnv names the variable holding the job summary file ($GITHUB_STEP_SUMMARY).
	githubSummaryEnv string
	// repoRoot is --repo-root (see [repoRoot]).
	repoRoot string
	// helpBase is --help-base: where the rule pages are published (see [HelpBase]).
	helpBase string
}

func newOutputFlags() outputFlags {
	return outputFlags{
		format: formatFlag{value: "text", choices: reportFormats}, outputs: outputsFlag{choices: reportFormats},
		color: "auto", githubSummaryEnv: "GITHUB_STEP_SUMMARY",
	}
}

func (o *outputFlags) add(cmd *cobra.Command) {
	cmd.Flags().Var(&o.format, "format", "output format on stdout: "+strings.Join(reportFormats, ", "))
	cmd.Flags().Var(&o.outputs, "output", "also write the report in FORMAT to PATH (repeatable: one run, several formats; PATH - is stdout), e.g. --output sarif=ledgercheck.sarif --output html=report.html")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reportFormats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", completeOutput)
	cmd.Flags().StringVar(&o.color, "color", "auto", "color the text format: auto (a terminal and NO_COLOR unset), always or never")
	cmd.Flags().StringVar(&o.repoRoot, "repo-root", "", "the directory sarif and github locations are relative to (default: the git top level of the working directory, else the working directory)")
	cmd.Flags().StringVar(&o.helpBase, "help-base", HelpBase, "the address where the rule pages (docs/rules) are published: sarif's helpUri and html's links are URL/RULE.md (empty: none, and no link to a page that may not exist)")
}

// completeOutput completes --output: the formats (as "FORMAT="), then, after the "=", the path
// as a file name.
func completeOutput(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var c []cobra.Completion
	for _, f := range reportFormats {
		if strings.HasPrefix(f, toComplete) {
			c = append(c, f+"=")
		}
	}
	return c, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// validate checks the flags before anything runs: --color, and each --output file writable;
// an --output FORMAT=- becomes stdout's format.
func (o *outputFlags) validate() error {
	if o.color != "auto" && o.color != "always" && o.color != "never" {
		return fault.Input(fmt.Errorf("--color %q: want auto, always or never", o.color))
	}
	if err := checkHelpBase(o.helpBase); err != nil {
		return fault.Input(fmt.Errorf("--help-base %q: %w", o.helpBase, err))
	}
	if i := slices.IndexFunc(o.outputs.files, func(f outputFile) bool { return f.path == stdoutPath }); i >= 0 {
		f := o.outputs.files[i]
		if o.format.set && o.format.value != f.format {
			return fault.Input(fmt.Errorf("--output %s=-: stdout is --format %s's; drop one of them", f.format, o.format.value))
		}
		o.format.value = f.format
		o.outputs.files = slices.Delete(o.outputs.files, i, i+1)
	}
	for _, f := range o.outputs.files {
		if err := checkWritable(f.path); err != nil {
			return fault.Input(fmt.Errorf("--output %s=%s: %w", f.format, f.path, err))
		}
	}
	return nil
}

// checkWritable proves, before the run, that the report can be written to path the way
// [outputFlags.writeFile] writes it: path is a regular file or none, and a file can be created
// beside it (and is removed again).
func checkWritable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name would only confuse
		}
		return fmt.Errorf("cannot write it: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// render writes each --output file, then (for the github format on stdout) appends the
// markdown summary to $GITHUB_STEP_SUMMARY when that is set, then prints the report in the
// --format format on stdout, and returns [fault.ErrFindings] when the report fails the gate.
// Stdout comes last so that a reader that stops early (`| head -1`) costs no file: a write to a
// closed pipe kills the process at stdout, or (when the signal is not delivered, as in-process)
// fails with EPIPE, which is no error: the reader has what it wanted.
func (o *outputFlags) render(g *globals, rep *report.Report) error {
	rep.Root = repoRoot(o.repoRoot)
	rep.HelpBase = o.helpBase
	if rep.Source == nil {
		rep.Source = fileSource(g.scope())
	}
	for _, f := range o.outputs.files {
		if err := o.writeFile(f, rep); err != nil {
			return fault.Env(fmt.Errorf("--output %s=%s: %w", f.format, f.path, err))
		}
	}
	if err := o.writeSummary(rep); err != nil {
		return err
	}
	if err := o.write(g.stdout, o.format.value, rep, true); err != nil && !errors.Is(err, syscall.EPIPE) {
		return err
	}
	if rep.Failed() {
		return fault.ErrFindings
	}
	return nil
}

// writeSummary appends the markdown job summary to the file $GITHUB_STEP_SUMMARY names, when
// stdout's format is github and it is set, so that a run appends it once.
func (o *outputFlags) writeSummary(rep *report.Report) error {
	path := os.Getenv(o.githubSummaryEnv)
	if o.format.value != "github" || path == "" {
		return nil
	}
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

// writeFile writes one --output file: into a temporary file beside it, renamed over it when
// complete, so a reader never sees half a report.
func (o *outputFlags) writeFile(f outputFile, rep *report.Report) error {
	tmp, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	werr := o.write(tmp, f.format, rep, false)
	if err := tmp.Chmod(0o644); werr == nil {
		werr = err
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return werr
	}
	return os.Rename(tmp.Name(), f.path)
}

// write writes the report in format to w: stdout, or an --output file, which is never colored.
func (o *outputFlags) write(w io.Writer, format string, rep *report.Report, stdout bool) error {
	switch format {
	case "json":
		return report.WriteReportJSON(w, rep)
	case "sarif":
		return report.WriteSARIF(w, rep)
	case "html":
		return report.WriteHTML(w, rep)
	case "github":
		return report.WriteGitHub(w, rep)
	}
	if o.compactText {
		return report.WriteLintText(w, rep, stdout && useColor(o.color, w))
	}
	return report.WriteReportText(w, rep, stdout && useColor(o.color, w))
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

// HelpBase is the address where the rule pages (docs/rules) of this build are published, set at
// build time like [Version] (-X ...cli.HelpBase=https://.../docs/rules; make build and make dist
// take HELP_BASE), and --help-base's default. Empty, the reports link to no page: SARIF's rules
// carry their pages as help, without helpUri, and html embeds them.
var HelpBase = ""

// checkHelpBase accepts "" (no pages) or an absolute http or https URL.
func checkHelpBase(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("want an http or https URL of the directory holding the rule pages, e.g. https://github.com/OWNER/ledgercheck/blob/v1.2.3/docs/rules")
	}
	return nil
}

// fileSource returns the text of a file a finding points into, read again through scope (nil when
// it cannot be read there), for the formats that quote the SQL at a finding.
func fileSource(scope input.Scope) func(string) []byte {
	return func(file string) []byte {
		src, err := scope.ReadFile(file, input.Migration)
		if err != nil {
			return nil
		}
		return src
	}
}
