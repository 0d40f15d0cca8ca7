#!/usr/bin/env bash
# bench/gate.sh: how long the whole gate takes beside a bare cluster boot, and what a reviewer's
# plain alternative reports.
#
#   make bench                 # or: bash bench/gate.sh [RUNS]
#
# 1. internal/cmd/bench, RUNS rounds (default 5), alternating: a bare cluster boot (initdb,
#    start, stop, in the same kind of temporary directory), `ledgercheck check --no-cache`,
#    `ledgercheck check` with the cache across runs warm and, warm, `check --times 1` (the gate
#    without its reruns); the median and range of the wall and
#    CPU time of each (CPU: the process tree's getrusage plus the sandboxed server's, which
#    ledgercheck counts itself), their ratios to the bare boot against issue 16's targets, and
#    the median of each phase of check.
# 2. The plain alternative, in the same run: install the artifact and the port into two scratch
#    databases (`ledgercheck env up`, psql -f), `pg_dump --schema-only` both, `diff` the dumps.
#    It prints how many diff lines a reviewer would have to read, and how long it took.
#
# Needs PostgreSQL 15 with pgvector (make setup), jq, psql and pg_dump. Run from the repository
# root. Nothing is left behind: every server and directory it starts is stopped and removed (the
# cache across runs keeps its entry; `ledgercheck cache clean` removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-${RUNS:-5}}
BIN=${BIN:-bin/ledgercheck}
LEFT=${LEFT:-migrations/decision_ledger.sql}
RIGHT=${RIGHT:-migrations/ports/decision_ledger_1024.sql}
for tool in jq psql pg_dump diff; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 3; }
done
go build -o "$BIN" ./cmd/ledgercheck
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

go run ./internal/cmd/bench -runs "$RUNS" -bin "$BIN" ${ARGS:+-- $ARGS}
mkdir -p "$work/cold"
code=0
"$BIN" check -q --format json ${ARGS:-} >"$work/cold/last.json" || code=$?
[ "$code" -lt 2 ] || { echo "bench: check failed with exit $code" >&2; exit "$code"; }

# Two scratch databases for the plain alternative: `env up` prints the URI of a scratch database
# in an embedded cluster. Started in this shell (not in a command substitution), so that cleanup
# can stop them.
start_up() { "$BIN" env up --dim "$1" >"$2" 2>"$2.err" & pids+=($!); }
wait_uri() { for _ in $(seq 1 300); do [ -s "$1" ] && break; sleep 0.1; done; head -n1 "$1"; }
t0=$(now_ms)
start_up 1536 "$work/a.uri"
start_up 1024 "$work/b.uri"
uri_a=$(wait_uri "$work/a.uri")
uri_b=$(wait_uri "$work/b.uri")
t_up=$(( $(now_ms) - t0 ))

# The plain alternative.
t0=$(now_ms)
psql -q -v ON_ERROR_STOP=1 -v dim=1536 -d "$uri_a" -f "$LEFT" >/dev/null 2>"$work/a.psql.err" &
pa=$!
psql -q -v ON_ERROR_STOP=1 -v dim=1024 -d "$uri_b" -f "$RIGHT" >/dev/null 2>"$work/b.psql.err" &
pb=$!
wait $pa; wait $pb
t_install=$(( $(now_ms) - t0 ))
restrict=()
pg_dump --help | grep -q -- --restrict-key && restrict=(--restrict-key=ledgercheckbench)
t0=$(now_ms)
pg_dump --schema-only --no-owner "${restrict[@]}" -d "$uri_a" | grep -v '^\\\(un\)\?restrict' >"$work/a.sql"
pg_dump --schema-only --no-owner "${restrict[@]}" -d "$uri_b" | grep -v '^\\\(un\)\?restrict' >"$work/b.sql"
diff -u "$work/a.sql" "$work/b.sql" >"$work/dump.diff" || true
t_dump=$(( $(now_ms) - t0 ))
hunks=$(grep -c '^@@' "$work/dump.diff" || true)
changed=$(grep -c '^[-+][^-+]' "$work/dump.diff" || true)
echo
echo "plain alternative: pg_dump --schema-only of both installs, then diff -u"
echo "  two scratch databases up (env up, cluster boot included): ${t_up}ms"
echo "  install both files with psql -f:                     ${t_install}ms"
echo "  pg_dump both + diff:                                 ${t_dump}ms"
echo "  total:                                               $((t_up + t_install + t_dump))ms"
echo "  what it reports: $hunks hunks, $changed changed lines, no allowlist, no reasons, no positions in the"
echo "  migration, vector(1536) vs vector(1024) shown as differences, nothing about reruns, probes or lint"
echo "  first lines of the diff:"
grep '^[-+][^-+]' "$work/dump.diff" | head -8 | sed 's/^/    /'
echo
echo "ledgercheck check reports instead:"
jq -r '.phases[] | "  \(.name): \(.status), \(.errors) errors, \(.warnings) warnings; \(.notes | join("; ") | .[0:160])"' "$work/cold/last.json"
