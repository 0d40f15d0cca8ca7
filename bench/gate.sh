#!/usr/bin/env bash
# bench/gate.sh: how long the whole gate takes, and what a reviewer's plain alternative reports.
#
#   make bench                 # or: bash bench/gate.sh [RUNS]
#
# 1. `ledgercheck check` cold, RUNS times (default 5): each run boots its own embedded cluster
#    (initdb included), so every figure is a cold start. Per-phase times come from the JSON
#    report; the median of each is printed.
# 2. `ledgercheck check` warm: against one server that is already up (--dsn to a cluster started
#    once for the benchmark), RUNS times; the per-dimension templates are rebuilt by each run,
#    the cluster boot is not.
# 3. The plain alternative, in the same run: install the artifact and the port into two scratch
#    databases (`ledgercheck env up`, psql -f), `pg_dump --schema-only` both, `diff` the dumps.
#    It prints how many diff lines a reviewer would have to read, and how long it took.
#
# Needs PostgreSQL 15 with pgvector (make setup), jq, psql and pg_dump. Run from the repository
# root. Nothing is left behind: every server and directory it starts is stopped and removed.
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
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) {print "-"} else if (NR%2) {print a[(NR+1)/2]} else {print int((a[NR/2]+a[NR/2+1])/2)}}'; }

# run_gate LABEL ARGS...: runs check RUNS times, collects the total and per-phase times.
run_gate() {
  local label=$1; shift
  local dir="$work/$label"; mkdir -p "$dir"
  for i in $(seq 1 "$RUNS"); do
    local t0 t1 code=0
    t0=$(now_ms)
    "$BIN" check --format json "$@" >"$dir/$i.json" 2>"$dir/$i.err" || code=$?
    t1=$(now_ms)
    echo $((t1 - t0)) >>"$dir/wall"
    echo "$code" >>"$dir/codes"
    if [ "$code" -ge 2 ]; then
      echo "bench: $label run $i failed with exit $code:" >&2; cat "$dir/$i.err" >&2; exit "$code"
    fi
  done
  printf '\n%s: %d runs, exit codes %s\n' "$label" "$RUNS" "$(sort -u "$dir/codes" | paste -sd, -)"
  printf '  %-22s %8s\n' "phase" "median"
  printf '  %-22s %6sms\n' "whole command (wall)" "$(median <"$dir/wall")"
  jq -r '.phases[].name' "$dir/1.json" | while read -r ph; do
    for i in $(seq 1 "$RUNS"); do jq -r --arg p "$ph" '.phases[] | select(.name == $p) | .duration_ms' "$dir/$i.json"; done \
      | median | xargs printf '  %-22s %6sms\n' "$ph"
  done
  local boot
  boot=$(for i in $(seq 1 "$RUNS"); do sed -n 's/^check: server ready in \([0-9.]*\)\(m\?s\)$/\1 \2/p' "$dir/$i.err"; done \
    | awk '{print ($2 == "s") ? int($1 * 1000) : int($1)}' | median)
  printf '  %-22s %6sms   (of which the server: initdb, start, roles%s)\n' "server ready" "$boot" "$([ "$label" = warm ] && echo '; --dsn: connect only')"
  printf '  findings (last run): %s\n' "$(jq -c '.totals' "$dir/$RUNS.json")"
}

echo "ledgercheck bench: $RUNS runs each, $(nproc) cores, $(uname -r)"
run_gate cold ${ARGS:-}

# A server kept up for the warm runs and the pg_dump alternative: `env up` prints the URI of a
# scratch database in an embedded cluster; --dsn takes it as the server to create databases on.
# Started in this shell (not in a command substitution), so that cleanup can stop them.
start_up() { "$BIN" env up --dim "$1" >"$2" 2>"$2.err" & pids+=($!); }
wait_uri() { for _ in $(seq 1 300); do [ -s "$1" ] && break; sleep 0.1; done; head -n1 "$1"; }
t0=$(now_ms)
start_up 1536 "$work/a.uri"
start_up 1024 "$work/b.uri"
uri_a=$(wait_uri "$work/a.uri")
uri_b=$(wait_uri "$work/b.uri")
t_up=$(( $(now_ms) - t0 ))
warm_uri="${uri_a/\/ledgercheck_*\?//postgres?}"
# The embedded cluster's bootstrap superuser (trust on its private socket) can set up the
# Supabase environment in the databases --dsn creates; env up's own role cannot.
warm_uri="${warm_uri/postgresql:\/\/postgres@/postgresql://supabase_admin@}"
code=0
"$BIN" check -q --times 1 --format json --dsn "$warm_uri" ${ARGS:-} >/dev/null 2>"$work/warm-probe.err" || code=$?
if [ "$code" -ge 2 ]; then
  # env up's URI is the unprivileged install role, which cannot set up the Supabase environment
  # through --dsn; warm is then the cold run without the server boot, measured in the same runs.
  echo
  echo "warm (server already up): $(( $(median <"$work/cold/wall") - $(for i in $(seq 1 "$RUNS"); do sed -n 's/^check: server ready in \([0-9.]*\)\(m\?s\)$/\1 \2/p' "$work/cold/$i.err"; done | awk '{print ($2 == "s") ? int($1 * 1000) : int($1)}' | median) ))ms median = cold wall minus server ready"
  echo "  (a --dsn run needs a superuser DSN: $(head -c 120 "$work/warm-probe.err"))"
else
  run_gate warm --dsn "$warm_uri" ${ARGS:-}
fi

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
echo "ledgercheck (last cold run) reports instead:"
jq -r '.phases[] | "  \(.name): \(.status), \(.errors) errors, \(.warnings) warnings; \(.notes | join("; ") | .[0:160])"' "$work/cold/$RUNS.json"
