module github.com/ledgercheck/ledgercheck

go 1.26

require (
	github.com/jackc/pgx/v5 v5.13.0
	github.com/pganalyze/pg_query_go/v5 v5.1.0
	github.com/sergi/go-diff v1.4.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/yuin/goldmark v1.8.7
	google.golang.org/protobuf v1.31.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

// The developer tools (bench, corpus, gendocs, genwalk) are left out of ./... so that `go install
// ./...` (what a pre-commit hook of language golang runs) installs ledgercheck alone; the Makefile
// names them wherever ./... is built, vetted or tested.
ignore ./internal/cmd
