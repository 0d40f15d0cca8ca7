package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// CommandTable returns README.md's table of commands, generated from the commands themselves
// (go run ./internal/cmd/gendocs writes it), so that no command or subcommand can go missing:
// each with its usage line and its one-line description.
func CommandTable() string {
	root := newRoot(&globals{stdout: io.Discard, stderr: io.Discard})
	root.InitDefaultCompletionCmd() // cobra adds it when it runs
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if sub.Runnable() {
				use := strings.TrimSpace(c.CommandPath() + " " + sub.Use)
				fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(use, "|", `\|`), strings.ReplaceAll(sub.Short, "|", `\|`))
			}
			walk(sub)
		}
	}
	walk(root)
	return b.String()
}
