#!/usr/bin/env bash
# bench/lint.sh: the CPU and wall time of `ledgercheck lint` beside squawk on the same files.
#
#   make bench-lint            # or: bash bench/lint.sh [RUNS]   (make bench runs it too)
#
# Both tools lint the same files in one call each: by default the .sql files at the top of
# testdata/corpus (59; the corpus's 60th is under env/)
# (FILES="a.sql b.sql ..." to change them). Each round runs every tool once, in an order that
# rotates from round to round so that neither always runs first, after one untimed warm-up call
# each; RUNS rounds (default 9). Printed per tool: the median CPU time (user+sys of the process
# and its children, from getrusage through bash's `times`), its spread (min-max and the middle
# half), the median wall time, and the ratio of ledgercheck's medians to squawk's.
#
# squawk is squawk-cli from the npm registry, version SQUAWK_VERSION, installed with npm into
# CACHE (default ~/.cache/ledgercheck) the first time. The npm package's `squawk` command is a
# node script that starts the native binary shipped in the package; both are measured: the
# command (what a project that installs squawk-cli runs) and the binary alone.
#
# BASE=REV (a commit) also builds ledgercheck as of REV (from `git archive`, in the temporary
# directory) and times it in the same rounds, as ledgercheck@REV: a before and after.
# BASE="REV1 REV2 ..." times each of them: a series of commits measured in one run.
#
# Exit codes of 0 and 1 are both expected (findings); anything else stops the benchmark.
# Nothing is left behind but the npm cache directory: ledgercheck is built in a temporary
# directory that is removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-${RUNS:-9}}
SQUAWK_VERSION=${SQUAWK_VERSION:-2.66.0}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ledgercheck}
LINT_ARGS=${LINT_ARGS:-}
# shellcheck disable=SC2206
files=(${FILES:-testdata/corpus/*.sql})
for tool in npm node go awk; do
  command -v "$tool" >/dev/null || { echo "bench-lint: $tool is required" >&2; exit 3; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# squawk-cli, installed once into the cache (into a temporary directory first, then renamed, so
# that an interrupted install is never taken for a finished one).
sq_dir="$CACHE/squawk-cli-$SQUAWK_VERSION"
if [ ! -x "$sq_dir/node_modules/.bin/squawk" ]; then
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/.squawk-install.XXXXXX")
  echo "bench-lint: installing squawk-cli@$SQUAWK_VERSION from the npm registry into $sq_dir" >&2
  if ! npm install --prefix "$tmp" --no-audit --no-fund --no-save --no-package-lock --loglevel=error \
    "squawk-cli@$SQUAWK_VERSION" >&2; then
    rm -rf "$tmp"; echo "bench-lint: npm install squawk-cli@$SQUAWK_VERSION failed" >&2; exit 3
  fi
  rm -rf "$sq_dir"
  mv "$tmp" "$sq_dir"
fi
sq_cmd="$sq_dir/node_modules/.bin/squawk"
sq_bin=$(node -e 'process.stdout.write(require(process.argv[1]).getBinaryPath())' "$sq_dir/node_modules/squawk-cli/js/index.js")
got=$("$sq_bin" --version 2>&1 || true)
case "$got" in *"$SQUAWK_VERSION"*) ;; *) echo "bench-lint: $sq_bin --version says '$got', want $SQUAWK_VERSION" >&2; exit 3 ;; esac

lc="$work/ledgercheck"
go build -o "$lc" ./cmd/ledgercheck
names=(ledgercheck squawk squawk-bin)
# shellcheck disable=SC2206
bases=(${BASE:-})
for i in "${!bases[@]}"; do
  mkdir "$work/base$i"
  git archive "${bases[$i]}" | tar -x -C "$work/base$i"
  (cd "$work/base$i" && go build -o "$work/ledgercheck-base$i" ./cmd/ledgercheck)
  names+=("ledgercheck@${bases[$i]}")
done
# run NAME: one timed call of the tool NAME on the files; appends "cpu_ms wall_ms" to its file.
run() {
  local cmd=()
  case $1 in
    ledgercheck) cmd=("$lc" lint -q $LINT_ARGS "${files[@]}") ;;
    squawk) cmd=("$sq_cmd" "${files[@]}") ;;
    squawk-bin) cmd=("$sq_bin" "${files[@]}") ;;
    ledgercheck@*)
      for i in "${!bases[@]}"; do
        [ "$1" = "ledgercheck@${bases[$i]}" ] && cmd=("$work/ledgercheck-base$i" lint -q $LINT_ARGS "${files[@]}")
      done ;;
  esac
  local t0 t1 out code
  t0=$(date +%s%N)
  # A subshell that only waits for the tool: the second line of `times` is its children's
  # user and sys time, as getrusage(RUSAGE_CHILDREN) counts them (the tool's own children too).
  out=$( ( code=0; "${cmd[@]}" >"$work/$1.out" 2>"$work/$1.err" || code=$?; times; echo "exit $code" ) )
  t1=$(date +%s%N)
  code=$(awk '/^exit/ {print $2}' <<<"$out")
  if [ "$code" -gt 1 ]; then
    echo "bench-lint: $1 exited $code:" >&2; head -5 "$work/$1.err" >&2; exit 3
  fi
  awk -v wall=$(((t1 - t0) / 1000)) 'NR == 2 {
      split($1, u, /[ms]/); split($2, s, /[ms]/)
      printf "%.3f %.3f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000, wall / 1000
    }' <<<"$out" >>"$work/$1.times"
}

# stats COLUMN FILE: median, min, max, first and third quartile of a column of numbers.
stats() {
  awk -v c="$1" '{print $c}' "$2" | sort -n | awk '
    {a[NR] = $1}
    function q(p,  i) { i = 1 + (NR - 1) * p; return a[int(i)] + (i - int(i)) * (a[int(i) + 1] - a[int(i)]) }
    END { printf "%.1f %.1f %.1f %.1f %.1f\n", q(0.5), a[1], a[NR], q(0.25), q(0.75) }'
}

for n in "${names[@]}"; do
  run "$n"
  : >"$work/$n.times"
done
for i in $(seq 1 "$RUNS"); do
  for k in $(seq 0 $((${#names[@]} - 1))); do run "${names[$(((i + k) % ${#names[@]}))]}"; done
done

bytes=$(cat "${files[@]}" | wc -c)
echo "lint bench: ${#files[@]} files ($((bytes / 1024)) KiB), $RUNS rounds in rotating order, $(nproc) cores, $(uname -r)"
echo "  ledgercheck $(git describe --always --dirty 2>/dev/null || echo '?') (lint -q${LINT_ARGS:+ $LINT_ARGS}); squawk-cli $SQUAWK_VERSION"
printf '\n  %-20s %9s %17s %15s %10s %8s\n' tool "CPU ms" "CPU min-max" "CPU q1-q3" "wall ms" findings
declare -A cpu_base wall_base
for n in "${names[@]}"; do
  read -r cm cmin cmax cq1 cq3 < <(stats 1 "$work/$n.times")
  read -r wm _ < <(stats 2 "$work/$n.times")
  printf '  %-20s %9s %17s %15s %10s %8s\n' "$n" "$cm" "$cmin-$cmax" "$cq1-$cq3" "$wm" "$(grep -c . "$work/$n.out" || true)"
  case $n in
    ledgercheck) cpu_lc=$cm wall_lc=$wm ;;
    squawk) cpu_sq=$cm wall_sq=$wm ;;
    squawk-bin) cpu_sb=$cm wall_sb=$wm ;;
    *) cpu_base[$n]=$cm wall_base[$n]=$wm ;;
  esac
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo
echo "  ledgercheck / squawk (npm command): CPU $(ratio "$cpu_lc" "$cpu_sq")x, wall $(ratio "$wall_lc" "$wall_sq")x"
echo "  ledgercheck / squawk binary alone:  CPU $(ratio "$cpu_lc" "$cpu_sb")x, wall $(ratio "$wall_lc" "$wall_sb")x"
for b in "${bases[@]}"; do
  n="ledgercheck@$b"
  echo "  $n / squawk binary:  CPU $(ratio "${cpu_base[$n]}" "$cpu_sb")x; ledgercheck / $n: CPU $(ratio "$cpu_lc" "${cpu_base[$n]}")x, wall $(ratio "$wall_lc" "${wall_base[$n]}")x"
done
echo "  (findings: output lines; squawk prints several lines per finding)"
