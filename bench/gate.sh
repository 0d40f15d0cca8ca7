#!/usr/bin/env bash
# bench/gate.sh: how long the whole gate takes beside the hand-made pipeline a reviewer runs
# today and beside a bare cluster boot, and what the pipeline reports.
#
#   make bench                 # or: bash bench/gate.sh [RUNS]
#
# 1. internal/cmd/bench, RUNS rounds (default 5), alternating: a bare cluster boot (initdb,
#    start, stop, in the same kind of temporary directory), `ledgercheck check --no-cache`,
#    `ledgercheck check` with the cache across runs warm, the hand-made pipeline
#    (bench/handmade.sh) and, warm, `check --times 1` (the gate without its reruns); the median
#    and range of the wall and CPU time of each (CPU: the process tree's getrusage plus the
#    sandboxed server's, which ledgercheck counts itself), their ratios to the hand-made pipeline
#    against issue 38's targets and to the bare boot, the median of each of the pipeline's stages
#    (boot, install, pg_dump+diff) and of each phase of check.
# 2. What the hand-made pipeline reports, beside what check reports: how many diff lines a
#    reviewer would have to read.
#
# Needs PostgreSQL 15 with pgvector (make setup), jq, psql and pg_dump. Run from the repository
# root. Nothing is left behind: every server and directory it starts is stopped and removed (the
# cache across runs keeps its entry; `ledgercheck cache clean` removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-${RUNS:-5}}
BIN=${BIN:-bin/ledgercheck}
for tool in jq diff; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 3; }
done
go build -o "$BIN" ./cmd/ledgercheck
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

go run ./internal/cmd/bench -runs "$RUNS" -bin "$BIN" ${ARGS:+-- $ARGS}
code=0
"$BIN" check -q --format json ${ARGS:-} >"$work/last.json" || code=$?
[ "$code" -lt 2 ] || { echo "bench: check failed with exit $code" >&2; exit "$code"; }
bash bench/handmade.sh >"$work/dump.diff"
hunks=$(grep -c '^@@' "$work/dump.diff" || true)
changed=$(grep -c '^[-+][^-+]' "$work/dump.diff" || true)
echo
echo "the hand-made pipeline reports: $hunks hunks, $changed changed lines, no allowlist, no reasons, no"
echo "  positions in the migration, vector(1536) vs vector(1024) shown as differences, nothing about"
echo "  reruns, probes, privileges or lint; first lines of the diff:"
grep '^[-+][^-+]' "$work/dump.diff" | head -8 | sed 's/^/    /'
echo
echo "ledgercheck check reports instead:"
jq -r '.phases[] | "  \(.name): \(.status), \(.errors) errors, \(.warnings) warnings; \(.notes | join("; ") | .[0:160])"' "$work/last.json"
