# ledgercheck: the two commands of the README are `make check` and `make test`. `make check` runs
# `make setup` first, which installs PostgreSQL 15 and pgvector when missing (Debian 12, Ubuntu
# 22.04 and 24.04, as root). `make test` does the same as root, then runs every test; as another
# user it installs nothing and the tests that need PostgreSQL skip where setup has not been done.
# `make setup PG=17` installs PostgreSQL 17 and pgvector for it instead (scripts/setup.sh says
# where and why); ledgercheck uses it with --pg 17. `make test-pg17` runs the tests on 17.
GO ?= go
BIN := bin/ledgercheck

.PHONY: setup build check test test-all vet lint race bench bench-lint bench-recall bench-repository fuzz corpus dist clean

# setup runs scripts/setup.sh, the script `ledgercheck setup` carries and runs outside a checkout:
# one install logic for both. PG=16 (any version but 15 and 17) is refused in one line, as
# ledgercheck refuses it.
setup:
	$(if $(filter-out 15 17,$(PG)),$(error PG=$(PG): ledgercheck runs PostgreSQL 15 or 17))
	@$(if $(PG),PG_MAJOR=$(PG) )bash scripts/setup.sh

# The version, commit and commit date stamped into the binary (`ledgercheck version`): the
# closest v* tag (git describe: v1.2.3, or v1.2.3-4-gabcdef012345 after it, -dirty with changes),
# the commit and its date. Empty (no git, no tag), the binary takes what its build info has.
STAMP_PKG := github.com/ledgercheck/ledgercheck/internal/cli
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
DATE ?= $(shell git show -s --format=%cI HEAD 2>/dev/null)
# HELP_BASE: where this build's rule pages are published (SARIF's helpUri, html's links): empty,
# none is named (see docs/how-to/release.md).
HELP_BASE ?=
LDFLAGS := -X $(STAMP_PKG).Version=$(VERSION) -X $(STAMP_PKG).Commit=$(COMMIT) -X $(STAMP_PKG).Date=$(DATE) -X $(STAMP_PKG).HelpBase=$(HELP_BASE)

# The developer tools (internal/cmd/*: bench, corpus, gendocs, genjsontree, genwalk, newrule) are not in ./... (go.mod
# ignores them, so that `go install ./...` installs ledgercheck alone); they are named here.
TOOLS := $(patsubst %/,./%,$(wildcard internal/cmd/*/))

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ledgercheck

# A release archive for this machine's platform (pg_query_go needs cgo, so no cross-compiling):
# $(DIST)/ledgercheck_VERSION_OS_ARCH.tar.gz holding the stamped binary, README.md, CHANGELOG.md,
# LICENSE (MIT) and licenses/, the license and notice files of every module the binary links (Go's
# own included), in a directory of the same name, and $(DIST)/SHA256SUMS (`cd $(DIST) && sha256sum
# -c SHA256SUMS` checks it). VERSION comes from the closest v* tag (see docs/how-to/release.md);
# HELP_BASE=URL also stamps where the rule pages are published (SARIF's helpUri, html's links).
DIST ?= dist
dist:
	@set -e; \
	  name=ledgercheck_$(or $(VERSION),0.1.0-dev)_$$($(GO) env GOOS)_$$($(GO) env GOARCH); \
	  stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	  mkdir -p "$$stage/$$name/licenses/go" "$(DIST)"; \
	  $(GO) build -ldflags '$(LDFLAGS)' -o "$$stage/$$name/ledgercheck" ./cmd/ledgercheck; \
	  cp README.md CHANGELOG.md LICENSE "$$stage/$$name/"; \
	  cp "$$($(GO) env GOROOT)/LICENSE" "$$stage/$$name/licenses/go/"; \
	  $(GO) list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Dir}}{{end}}{{end}}' ./cmd/ledgercheck | sort -u | \
	  while read -r mod dir; do \
	    mkdir -p "$$stage/$$name/licenses/$$mod"; \
	    find "$$dir" -maxdepth 1 -type f \( -iname 'licen[cs]e*' -o -iname 'copying*' -o -iname 'notice*' \) -exec cp {} "$$stage/$$name/licenses/$$mod/" \; ; \
	    ls "$$stage/$$name/licenses/$$mod" | grep -q . || { echo "dist: $$mod has no license file in $$dir" >&2; exit 1; }; \
	  done; \
	  chmod -R u+w,go+r "$$stage/$$name"; \
	  tar -C "$$stage" --owner=0 --group=0 --numeric-owner -czf "$(DIST)/$$name.tar.gz" "$$name"; \
	  (cd "$(DIST)" && sha256sum "$$name.tar.gz" > SHA256SUMS); \
	  echo "$(DIST)/$$name.tar.gz"; echo "$(DIST)/SHA256SUMS"

check: setup build
	./$(BIN) check

vet: fmt
	$(GO) vet ./... $(TOOLS)

.PHONY: fmt
fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

# Every test. As root, setup runs first and installs what is missing (skipping what is present),
# so on a fresh Debian 12 or Ubuntu 22.04/24.04 machine `make test` runs everything; as another
# user, or where setup cannot install, it says in one line what is missing and the tests that need
# PostgreSQL skip (saying why), except under CI=true, where setup's failure, or a test that cannot
# start PostgreSQL, fails.
# Each test binary's limit: several times the slowest package's time on 2 cores (cmd/ledgercheck,
# about 3 minutes in the suite), so that a loaded machine finishes rather than panics.
TEST_TIMEOUT ?= 20m
# The slowest packages first: go test starts test binaries in the order it is given packages, so
# a slow package left to the end would run alone: after the six slowest, the packages of 10 to
# 20 s (measured alone), whose place in ./... and TOOLS (alphabetical) left migrations,
# introspect and the rule scaffold's build to end a cold run, one of them alone for its last 5
# to 6 s (2026-12-06). Four at a time (-p 4) on any machine: a test
# binary waits for its servers a good part of its time (internal/scratch uses a quarter of 2
# cores alone), and two at a time left the cores idle a seventh of the suite.
# The test binaries are linked without debug information (-s -w: half of a test binary's link,
# about a second of CPU for each of the 34, which all link the parser), by the gold linker where
# the machine has it (binutils' ld.gold): a cold build of every test binary took 8 s less CPU of
# 162 (2026-12-05), a tenth of each link.
GOLD := $(if $(shell command -v ld.gold),-extldflags=-fuse-ld=gold)
TEST_FLAGS := -p 4 -ldflags='-s -w $(GOLD)'
# The go commands the tests run themselves (the binary installed once for cmd/ledgercheck, the
# module-proxy install, the rule scaffold's copy of the module) link without DWARF too, through
# GOFLAGS (whose values cannot hold a space: -w, the larger half of the saving, alone). A flag on
# a command line wins over it (make build's -ldflags).
# -trimpath: a package's compile then does not depend on the directory it is in, so the rule
# scaffold's test, which builds a copy of the module (internal/cmd/newrule), compiles only the
# packages the scaffold changed: 16.7 s to 10.1 s of CPU (2026-12-05).
# -gcflags=all=-dwarf=false: the compiler writes no debug information either (the linker would
# drop it: -w), std and every dependency included; a cold build of every test binary took 96 to
# 107 s of CPU instead of 106 to 118 (2026-12-06, two runs each, alternating). Stack traces and
# file:line in test failures come from the binary's line tables, which stay.
TEST_GOFLAGS := $(strip $(GOFLAGS) -trimpath -ldflags=-w -gcflags=all=-dwarf=false)
# The tests build pg_query's C parser unoptimized (-O0; go's default is -O2 -g): a cold build of
# every test binary took 109 s of CPU instead of 129 s, 56 s of wall instead of 66 (its C files
# are on the way to every test binary), and parsing is no slower than a test can tell (lint of
# the 64 corpus files: 28 ms either way). build, dist, check, race, stress and fuzz build it as
# go does; the tests that run make build and make dist inherit it (they check the stamps).
TEST_ENV := GOFLAGS='$(TEST_GOFLAGS)' CGO_CFLAGS='-O0'

# go vet is `make lint`'s (every analyzer, on every package and its tests), which CI runs before
# the tests; inside go test's build it cost a cold `make test` 12 to 15 s of CPU and 6 s of wall
# (go test's default set of analyzers as much as all of them: the cost is type-checking every
# package again), so the tests build with -vet=off, as test-pg17 does.
# The tests' temporary files go to memory where there is room (scripts/intmp.sh).
IN_TMPFS := bash scripts/intmp.sh
TEST_PKGS := ./internal/scratch/ ./cmd/ledgercheck/ ./internal/privileged/ ./internal/cli/ ./internal/gate/ ./internal/corpus/ \
  ./migrations/ ./internal/parity/ ./internal/rerun/ ./introspect/ ./internal/repository/ ./internal/cmd/newrule/ ./...
test: fmt
	@if [ "$$(id -u)" = 0 ]; then \
	  bash scripts/setup.sh || { [ "$(CI)" != true ] && echo "make test: setup could not install PostgreSQL; the tests that need it skip"; }; \
	else \
	  bash scripts/setup.sh --check >/dev/null 2>&1 || echo "make test: $$(bash scripts/setup.sh --check 2>&1 | tail -n1); the tests that need it skip$(if $(filter true,$(CI)), (fail: CI=true),) (run make setup for its commands)"; \
	fi
	$(TEST_ENV) $(IN_TMPFS) $(GO) test -vet=off $(TEST_FLAGS) -count=1 -timeout $(TEST_TIMEOUT) $(TEST_PKGS) $(TOOLS)

# Setup (which installs what is missing, as root, or prints the commands), then every test.
test-all: setup
	@$(MAKE) --no-print-directory test

# The same tests, goldens included, on PostgreSQL 17 (installed first, as `make setup PG=17`):
# LEDGERCHECK_PG=17 makes every scratch server and ledgercheck run of the tests ask for 17, so
# that one that cannot get it fails (CI=true) or skips (locally), and never runs on 15 instead;
# the tests about 15 alone (the guard's) name 15's binaries. Separate from `make test`, which
# stays within its time on 2 cores.
.PHONY: test-pg17
test-pg17:
	@$(MAKE) --no-print-directory setup PG=17
	LEDGERCHECK_PG=17 $(TEST_ENV) $(IN_TMPFS) $(GO) test -vet=off $(TEST_FLAGS) -count=1 -timeout $(TEST_TIMEOUT) $(TEST_PKGS) $(TOOLS)

# What CI checks besides the tests: go.mod and go.sum tidy, go vet, gofmt and staticcheck (a
# pinned version from the Go module proxy; v0.8.2 builds with Go 1.26).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: vet
	$(GO) mod tidy -diff
	$(GO) run $(STATICCHECK) ./... $(TOOLS)

# The packages that run goroutines (a repository's sidecars, the gate's variants, probes and
# upgrades side by side, the cache's workers, the concurrent parse-tree decoder) under the race
# detector. CI runs it.
RACE_PKGS := ./internal/gate/ ./internal/repository/ ./internal/rerun/ ./introspect/ ./internal/scratch/ ./internal/pgsql/
race: setup
	$(GO) test -race -count=1 $(RACE_PKGS)

# The tests whose verdicts could depend on timing (the warden's blame, roles by turns, variants
# side by side), COUNT times each with GOMAXPROCS 1 and 2 while busy loops load every core
# (scripts/stress.sh): blame and exit code must not change. CI runs it.
COUNT ?= 2
.PHONY: stress
stress: setup
	@bash scripts/stress.sh $(COUNT)

# The gate beside the hand-made pipeline a reviewer runs today (bench/handmade.sh: initdb in tmpfs,
# the Supabase-like environment and Open Brain-style base twice, the artifact and the port,
# pg_dump --schema-only of both, diff) and a bare cluster boot, alternating: check --no-cache and
# check with the cache warm, medians and ranges of wall and CPU time, ratios to the pipeline
# (targets: warm ≤0.5×, --no-cache ≤1.0×) and to the boot, per stage and per phase
# (internal/cmd/bench, bench/gate.sh). RUNS=N rounds (default 5). Then lint beside squawk
# (bench-lint), the shipped recall function on 10,000 rows (bench-recall) and a repository.
bench: setup build
	@bash bench/gate.sh $(RUNS)
	@bash bench/lint.sh $(RUNS)
	@$(MAKE) --no-print-directory bench-recall
	@$(MAKE) --no-print-directory bench-repository

# check over a repository of 20 generated sidecars with needs, cache warm: the whole run against
# the sum of 20 separate runs, and each added sidecar against one more install
# (internal/repository/bench_test.go); then chains of 10, 50 and 150 sidecars, each needing the
# one before: the whole run and the time per added sidecar, which must not grow with the chain
# (chain_bench_test.go; LEDGERCHECK_BENCH_CHAINS=10,50 picks the lengths). Wall times.
bench-repository:
	$(GO) test -run '^$$' -bench BenchmarkRepository -benchtime 1x -count 1 -timeout 60m ./internal/repository/ | grep -E '^Benchmark'

# match_decision_ledger() of the artifact and the port over 10,000 ledger rows, full-text path:
# the median per call of a dense and a sparse question (migrations/bench_test.go; target < 50 ms).
bench-recall:
	$(GO) test -run '^$$' -bench BenchmarkMatchFTS10k -benchtime 20x -count 1 ./migrations/ | grep -E '^Benchmark'

# `ledgercheck lint` beside squawk (npm's squawk-cli, installed into ~/.cache/ledgercheck when
# missing) on the same files, CPU and wall time (bench/lint.sh). Needs no database.
bench-lint:
	@bash bench/lint.sh $(RUNS)

# Precision and recall per rule on the labelled corpus (testdata/corpus), every file installed
# with its needs (internal/corpus; the same table is a golden of its tests).
corpus: setup
	$(GO) run ./internal/cmd/corpus -install

# Every fuzz target for FUZZTIME each (go test -fuzz takes one target at a time). A crasher is
# written to the package's testdata/fuzz/ and stays there as a regression case for `make test`.
FUZZTIME ?= 20s
FUZZ_TARGETS := ./internal/pgsql:FuzzParse ./internal/pgsql:FuzzScanner ./internal/pgsql:FuzzNormalizeFunctionBody ./internal/pgsql:FuzzNormalizeView ./internal/lint:FuzzLint ./internal/allowlist:FuzzParse ./internal/config:FuzzParse ./internal/pgsql:FuzzDecodeJSON ./internal/pgsql:FuzzJSONTree ./internal/config:FuzzDecodeKnown

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$pkg $$fn for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s $$pkg; \
	done

# The SARIF of a failing run through Microsoft's SARIF multitool (npm @microsoft/sarif-multitool,
# pinned, installed under bin/), which must find no error and no warning. Not part of `make test`:
# it needs npm and a 95 MB download, which the fresh-machine setup does not have.
SARIF_MULTITOOL_VERSION ?= 5.7.0
.PHONY: sarif-validate
sarif-validate:
	@mkdir -p bin/sarif-multitool
	cd bin/sarif-multitool && npm install --no-save --no-audit --no-fund --silent @microsoft/sarif-multitool@$(SARIF_MULTITOOL_VERSION)
	chmod u+x bin/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
	LEDGERCHECK_SARIF_MULTITOOL=$(CURDIR)/bin/sarif-multitool/node_modules/.bin/sarif-multitool \
	  $(GO) test -count=1 -run TestSARIFValidatesWithTheMultitool ./cmd/ledgercheck

# A new rule: its Go file, its failing case and its page (docs/rules/ID.md), then the rules
# index. PHASE is lint, install, audit, parity, probe, allowlist, rerun or locks.
.PHONY: new-rule
new-rule:
	@test -n "$(ID)" -a -n "$(PHASE)" || { echo "usage: make new-rule ID=my-rule PHASE=lint"; exit 2; }
	$(GO) run ./internal/cmd/newrule -id "$(ID)" -phase "$(PHASE)"
	$(GO) run ./internal/cmd/gendocs

clean:
	rm -rf bin $(DIST)
