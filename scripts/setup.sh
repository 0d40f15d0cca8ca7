#!/usr/bin/env bash
# setup.sh: install what ledgercheck needs on Debian 12 (bookworm), skipping what is present.
#
#   - PostgreSQL 15 server and server headers (Debian packages postgresql-15, postgresql-server-dev-15)
#   - pgvector 0.8.0, built from Debian's *source* package `pgvector` (published for trixie; only a
#     deb-src entry is added, so no trixie binary can ever be installed)
#   - for PostgreSQL 15, the server module ledgercheck_guard (scratch/guard/c), built with PGXS and
#     installed into `pg_config --pkglibdir` with the digest of its source beside it
#     (ledgercheck_guard.digest): it is rebuilt whenever the source changes
#   - bubblewrap (bwrap), when missing
#
# Idempotent: a second run changes nothing. Run as root; run as another user it prints the commands
# that need root and exits 1.
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PG_BIN=/usr/lib/postgresql/${PG_MAJOR}/bin
PG_CONFIG=${PG_BIN}/pg_config
PGVECTOR_VERSION=0.8.0
SRC_LIST=/etc/apt/sources.list.d/ledgercheck-pgvector-src.sources
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GUARD_SRC=${ROOT}/scratch/guard/c

say()  { printf 'setup: %s\n' "$*"; }
skip() { printf 'setup: skip: %s\n' "$*"; }

need_pg=0; need_dev=0; need_vector=0; need_guard=0; need_bwrap=0
[ -x "${PG_BIN}/postgres" ] && [ -x "${PG_BIN}/initdb" ] || need_pg=1
[ -x "${PG_CONFIG}" ] && [ -f "/usr/include/postgresql/${PG_MAJOR}/server/postgres.h" ] || need_dev=1
if [ -x "${PG_CONFIG}" ]; then
  [ -f "$("${PG_CONFIG}" --sharedir)/extension/vector.control" ] || need_vector=1
else
  need_vector=1
fi
# The guard gives PostgreSQL 15 the CREATEROLE rules of 16 (scratch/guard/README.md); 16+ needs none.
if [ "${PG_MAJOR}" = 15 ]; then
  guard_digest=$(sha256sum "${GUARD_SRC}/ledgercheck_guard.c" | cut -c1-16)
  pkglibdir=$("${PG_CONFIG}" --pkglibdir 2>/dev/null || echo "/usr/lib/postgresql/${PG_MAJOR}/lib")
  guard_so=${pkglibdir}/ledgercheck_guard.so
  guard_digest_file=${pkglibdir}/ledgercheck_guard.digest
  [ -f "${guard_so}" ] && [ "$(cat "${guard_digest_file}" 2>/dev/null)" = "${guard_digest}" ] || need_guard=1
fi
command -v bwrap >/dev/null 2>&1 || need_bwrap=1

skip_guard() {
  if [ "${PG_MAJOR}" = 15 ]; then
    skip "ledgercheck_guard ${guard_digest} installed (${guard_so})"
  else
    skip "ledgercheck_guard: PostgreSQL ${PG_MAJOR} needs none"
  fi
}

if [ $need_pg -eq 0 ] && [ $need_dev -eq 0 ] && [ $need_vector -eq 0 ] && [ $need_guard -eq 0 ] && [ $need_bwrap -eq 0 ]; then
  skip "PostgreSQL ${PG_MAJOR} server present (${PG_BIN})"
  skip "PostgreSQL ${PG_MAJOR} server headers present"
  skip "pgvector present ($("${PG_CONFIG}" --sharedir)/extension/vector.control)"
  skip_guard
  skip "bubblewrap present ($(command -v bwrap))"
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
  if [ $need_guard -eq 1 ]; then
    command -v gcc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || echo "  sudo apt-get install -y gcc make" >&2
    echo "  sudo make -C ${GUARD_SRC} PG_CONFIG=${PG_CONFIG} GUARD_VERSION=${guard_digest} install && make -C ${GUARD_SRC} clean" >&2
    echo "  echo ${guard_digest} | sudo tee ${guard_digest_file}" >&2
  fi
  if [ $need_bwrap -eq 1 ]; then
    echo "  sudo apt-get install -y bubblewrap" >&2
  fi
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
work=""; guard_work=""
trap 'rm -rf ${work:+"${work}"} ${guard_work:+"${guard_work}"}' EXIT
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

if [ $need_guard -eq 1 ]; then
  if ! command -v make >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
    apt_update
    say "installing gcc make"
    apt-get install -y -qq gcc make >/dev/null
  fi
  # Built in a copy, so that the work tree gets no build products.
  pkglibdir=$("${PG_CONFIG}" --pkglibdir)
  guard_so=${pkglibdir}/ledgercheck_guard.so
  guard_digest_file=${pkglibdir}/ledgercheck_guard.digest
  guard_work=$(mktemp -d)
  cp "${GUARD_SRC}/ledgercheck_guard.c" "${GUARD_SRC}/Makefile" "${guard_work}/"
  say "building ledgercheck_guard ${guard_digest}"
  make -s -C "${guard_work}" PG_CONFIG="${PG_CONFIG}" GUARD_VERSION="${guard_digest}" install >/dev/null
  echo "${guard_digest}" > "${guard_digest_file}"
  say "installed ledgercheck_guard ${guard_digest}: ${guard_so}"
else
  skip_guard
fi

if [ $need_bwrap -eq 1 ]; then
  apt_update
  say "installing bubblewrap"
  apt-get install -y -qq bubblewrap >/dev/null
else
  skip "bubblewrap present ($(command -v bwrap))"
fi
say "done"
