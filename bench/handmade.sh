#!/usr/bin/env bash
# bench/handmade.sh: the hand-made pipeline a reviewer runs today to compare a sidecar migration
# with its port, the baseline `make bench` measures ledgercheck against:
#
#   bash bench/handmade.sh > dump.diff
#
#  1. initdb into tmpfs (/dev/shm where it exists), start the server (no fsync);
#  2. the API roles, then two databases, each with the Supabase-like environment and the Open Brain-style base and
#     agent-memory schema (bench/handmade/*.sql) at its side's dimension, side by side;
#  3. the artifact (LEFT, at LEFT_DIM) into one and the port (RIGHT, at RIGHT_DIM) into the other,
#     psql -f with ON_ERROR_STOP, side by side;
#  4. pg_dump --schema-only of both, diff -u of the dumps on stdout;
#  5. the server stopped and its directory removed.
#
# Every process it starts is its child and waited for, so that its own rusage (what `make bench`
# reads through wait4) holds the CPU time of initdb, the server, psql, pg_dump and diff. As root it
# runs itself again as nobody (initdb refuses root). PG_BIN picks the binaries (default
# PostgreSQL 15's); HANDMADE_TIMES=1 logs each stage's wall time on stderr. Exit 0 whether or not the dumps differ; anything that fails stops it (exit 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
if [ "$(id -u)" = 0 ]; then
  exec setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all -- bash "$0" "$@"
fi
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
LEFT=${LEFT:-$repo/migrations/decision_ledger.sql}
LEFT_DIM=${LEFT_DIM:-1536}
RIGHT=${RIGHT:-$repo/migrations/ports/decision_ledger_1024.sql}
RIGHT_DIM=${RIGHT_DIM:-1024}
tmp=/dev/shm
[ -d "$tmp" ] && [ -w "$tmp" ] || tmp=${TMPDIR:-/tmp}
dir=$(mktemp -d "$tmp/handmade.XXXXXX")
pg=
cleanup() {
  if [ -n "$pg" ]; then kill -INT "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "handmade: $*" >&2; exit 3; }
# stage NAME: with HANDMADE_TIMES=1, logs the wall time since the last stage ("handmade: NAME 12ms").
t_last=$(date +%s%N)
stage() {
  local now; now=$(date +%s%N)
  [ -z "${HANDMADE_TIMES:-}" ] || echo "handmade: $1 $(((now - t_last) / 1000000))ms" >&2
  t_last=$now
}

"$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync --no-instructions -E UTF8 --locale=C \
  >"$dir/initdb.log" 2>&1 || fail "initdb: $(tail -n1 "$dir/initdb.log")"
"$PG_BIN/postgres" -D "$dir/data" -k "$dir" -c listen_addresses= -c fsync=off -c full_page_writes=off \
  -c synchronous_commit=off >"$dir/server.log" 2>&1 &
pg=$!
for _ in $(seq 1 600); do
  "$PG_BIN/pg_isready" -q -h "$dir" -U postgres && break
  kill -0 "$pg" 2>/dev/null || fail "the server did not start: $(tail -n1 "$dir/server.log")"
  sleep 0.01
done
stage boot
psql() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -U postgres "$@"; }

psql -d postgres -f "$here/handmade/00_roles.sql" >"$dir/roles.log" 2>&1 || fail "roles: $(grep -m1 ERROR "$dir/roles.log")"

# side DB DIM FILE: a database with the environment and the base at DIM, then FILE.
side() {
  "$PG_BIN/createdb" -h "$dir" -U postgres "$1" &&
    psql -d "$1" -v dim="$2" -f "$here/handmade/10_supabase.sql" -f "$here/handmade/20_openbrain.sql" \
      -f "$3" >"$dir/$1.log" 2>&1 || { echo "handmade: $1: $(grep -m1 ERROR "$dir/$1.log")" >&2; return 3; }
}
side artifact "$LEFT_DIM" "$LEFT" & a=$!
side port "$RIGHT_DIM" "$RIGHT" & b=$!
wait "$a" || exit 3
wait "$b" || exit 3
stage install

dump() { "$PG_BIN/pg_dump" --schema-only --no-owner -h "$dir" -U postgres -d "$1" | grep -v '^\\\(un\)\?restrict'; }
dump artifact >"$dir/artifact.sql"
dump port >"$dir/port.sql"
diff -u "$dir/artifact.sql" "$dir/port.sql" || [ $? = 1 ] || fail "diff failed"
stage dump+diff
