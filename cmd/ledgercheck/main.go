// Command ledgercheck is a schema parity and lint checker for Supabase sidecar migrations.
// See README.md, or run `ledgercheck --help`.
package main

import (
	"context"
	"os"

	"github.com/ledgercheck/ledgercheck/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
