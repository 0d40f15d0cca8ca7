#!/usr/bin/env bash
# guard-container.sh CONTAINER: load ledgercheck's guard module into a running PostgreSQL 15
# container of the official postgres image family (pgvector/pgvector:*-pg15, postgres:15), so that
# `ledgercheck --dsn` may let user SQL create roles there (the guard gives PostgreSQL 15 the
# CREATEROLE rules of 16: internal/scratch/guard/README.md). On 16 and later it does nothing.
#
# The images ship no compiler and no server headers (their build removes them), but keep their
# apt source for the PostgreSQL project's repository: the script installs build-essential and
# postgresql-server-dev-15 inside, builds the guard from its source (copied in),
# appends it to shared_preload_libraries with ALTER SYSTEM, restarts the container, waits for
# the server, and checks that SHOW ledgercheck_guard.version is the source's digest. It needs
# docker (DOCKER overrides the command) and a container that can reach its apt repository.
set -euo pipefail

say() { printf 'guard-container: %s\n' "$*"; }
die() { printf 'guard-container: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: guard-container.sh CONTAINER" >&2; exit 2; }
c=$1
DOCKER=${DOCKER:-docker}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The guard's source: a checkout's, or the copy `ledgercheck setup --container` writes out.
GUARD_SRC=${LEDGERCHECK_SETUP_GUARD_SRC:-${ROOT}/internal/scratch/guard/c}
digest=$(sha256sum "${GUARD_SRC}/ledgercheck_guard.c" | cut -c1-16)

major=$(${DOCKER} exec "$c" sh -c 'printf %s "${PG_MAJOR:-}"') || die "cannot run a command in container ${c}"
[ -n "${major}" ] || die "container ${c} sets no PG_MAJOR: it is not of the official postgres image family"
if [ "${major}" != 15 ]; then
  say "container ${c} runs PostgreSQL ${major}, which enforces the guard's rules itself: nothing to do"
  exit 0
fi
user=$(${DOCKER} exec "$c" sh -c 'printf %s "${POSTGRES_USER:-postgres}"')
sql() { ${DOCKER} exec -u postgres "$c" psql -X -q -t -A -U "${user}" -d postgres -c "$1"; }

loaded=$(sql "SELECT pg_catalog.current_setting('ledgercheck_guard.version', true)")
if [ "${loaded}" = "${digest}" ]; then
  say "ledgercheck_guard ${digest} is loaded in ${c}: nothing to do"
  exit 0
fi

say "installing build-essential and postgresql-server-dev-15 in ${c}"
${DOCKER} exec "$c" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends build-essential postgresql-server-dev-15 >/dev/null'
say "building ledgercheck_guard ${digest} in ${c}"
${DOCKER} exec "$c" mkdir -p /tmp/ledgercheck-guard
${DOCKER} cp "${GUARD_SRC}/." "$c:/tmp/ledgercheck-guard/"
${DOCKER} exec "$c" make -s -C /tmp/ledgercheck-guard PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config "GUARD_VERSION=${digest}" install

preload=$(sql "SHOW shared_preload_libraries")
case ",${preload// /}," in
  *,ledgercheck_guard,*) ;;
  *) sql "ALTER SYSTEM SET shared_preload_libraries = '${preload:+${preload}, }ledgercheck_guard'" ;;
esac
say "restarting ${c}"
${DOCKER} restart "$c" >/dev/null
for _ in $(seq 1 60); do
  if ${DOCKER} exec "$c" pg_isready -q -U "${user}" -d postgres; then break; fi
  sleep 1
done
loaded=$(sql "SELECT pg_catalog.current_setting('ledgercheck_guard.version', true)") || die "the server in ${c} did not come back after the restart"
[ "${loaded}" = "${digest}" ] || die "after the restart ${c} reports ledgercheck_guard version '${loaded}', not ${digest}"
say "ledgercheck_guard ${digest} is loaded in ${c}"
