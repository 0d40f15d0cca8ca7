#!/usr/bin/env bash
# setup.sh: install what ledgercheck needs on Debian 12 (bookworm), skipping what is present.
#
#   - PostgreSQL 15 server and server headers (Debian packages postgresql-15, postgresql-server-dev-15)
#   - pgvector 0.8.0, built from Debian's *source* package `pgvector` (published for trixie; only a
#     deb-src entry is added, so no trixie binary can ever be installed)
#
# Idempotent: a second run changes nothing. Run as root; run as another user it prints the commands
# that need root and exits 1.
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PG_BIN=/usr/lib/postgresql/${PG_MAJOR}/bin
PG_CONFIG=${PG_BIN}/pg_config
PGVECTOR_VERSION=0.8.0
SRC_LIST=/etc/apt/sources.list.d/ledgercheck-pgvector-src.sources

say()  { printf 'setup: %s\n' "$*"; }
skip() { printf 'setup: skip: %s\n' "$*"; }

need_pg=0; need_dev=0; need_vector=0
[ -x "${PG_BIN}/postgres" ] && [ -x "${PG_BIN}/initdb" ] || need_pg=1
[ -x "${PG_CONFIG}" ] && [ -f "/usr/include/postgresql/${PG_MAJOR}/server/postgres.h" ] || need_dev=1
if [ -x "${PG_CONFIG}" ]; then
  [ -f "$("${PG_CONFIG}" --sharedir)/extension/vector.control" ] || need_vector=1
else
  need_vector=1
fi

if [ $need_pg -eq 0 ] && [ $need_dev -eq 0 ] && [ $need_vector -eq 0 ]; then
  skip "PostgreSQL ${PG_MAJOR} server present (${PG_BIN})"
  skip "PostgreSQL ${PG_MAJOR} server headers present"
  skip "pgvector present ($("${PG_CONFIG}" --sharedir)/extension/vector.control)"
  say "nothing to do"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: these steps need root; run 'sudo make setup', or run these yourself:" >&2
  if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then
    echo "  sudo apt-get update" >&2
    echo "  sudo apt-get install -y postgresql-${PG_MAJOR} postgresql-server-dev-${PG_MAJOR}" >&2
  fi
  if [ $need_vector -eq 1 ]; then
    echo "  sudo tee ${SRC_LIST}   # Types: deb-src / URIs: <your Debian mirror> / Suites: trixie / Components: main / Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" >&2
    echo "  sudo apt-get update && sudo apt-get install -y dpkg-dev build-essential" >&2
    echo "  apt-get source --download-only pgvector   # then: make PG_CONFIG=${PG_CONFIG} && sudo make install PG_CONFIG=${PG_CONFIG}" >&2
  fi
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() { if [ $updated -eq 0 ]; then say "apt-get update"; apt-get update -qq; updated=1; fi; }

if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then
  apt_update
  say "installing postgresql-${PG_MAJOR} postgresql-server-dev-${PG_MAJOR}"
  apt-get install -y -qq "postgresql-${PG_MAJOR}" "postgresql-server-dev-${PG_MAJOR}" >/dev/null
else
  skip "PostgreSQL ${PG_MAJOR} server and headers present"
fi

if [ $need_vector -eq 1 ]; then
  if [ ! -f "${SRC_LIST}" ]; then
    # Reuse the mirror the machine already uses for bookworm, so no host is named here.
    mirror=$( { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } \
      | grep -v '^[[:space:]]*#' | grep -oE '[a-z]+://[^ ]+/debian/?([[:space:]]|$)' | head -n1 | tr -d '[:space:]')
    if [ -z "${mirror}" ]; then
      echo "setup: cannot find a Debian mirror in /etc/apt/sources.list*; add a deb-src entry for trixie (pgvector) by hand" >&2
      exit 1
    fi
    say "adding deb-src entry for trixie (source packages only) at ${SRC_LIST}"
    cat > "${SRC_LIST}" <<SRC
Types: deb-src
URIs: ${mirror}
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    updated=0
  else
    skip "deb-src entry present (${SRC_LIST})"
  fi
  apt_update
  if ! command -v dpkg-source >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
    say "installing dpkg-dev build-essential"
    apt-get install -y -qq dpkg-dev build-essential >/dev/null
  fi
  work=$(mktemp -d)
  trap 'rm -rf "${work}"' EXIT
  say "building pgvector ${PGVECTOR_VERSION} from Debian's source package"
  (cd "${work}" && apt-get source --download-only -qq "pgvector=${PGVECTOR_VERSION}-1" >/dev/null 2>&1 \
     || apt-get source --download-only -qq pgvector >/dev/null)
  tarball=$(ls "${work}"/pgvector_*.orig.tar.* | head -n1)
  tar -xf "${tarball}" -C "${work}"
  srcdir=$(find "${work}" -mindepth 1 -maxdepth 1 -type d | head -n1)
  make -s -C "${srcdir}" PG_CONFIG="${PG_CONFIG}" -j"$(nproc)" >/dev/null
  make -s -C "${srcdir}" PG_CONFIG="${PG_CONFIG}" install >/dev/null
  say "installed pgvector: $("${PG_CONFIG}" --sharedir)/extension/vector.control"
else
  skip "pgvector present"
fi
say "done"
