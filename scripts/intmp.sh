#!/usr/bin/env bash
# intmp.sh CMD [ARG...] runs CMD (make test's go test) with its temporary files ($TMPDIR) in a
# directory of their own in memory, removed when CMD ends, when /dev/shm is a writable tmpfs
# with at least 4 GiB free; otherwise where they were. The test suite writes about 12 GB of
# temporary files (cache entries, repositories, clones), a gigabyte at most at a time; on disk
# they cost a third of its system time. go's build directory stays where it was ($GOTMPDIR): go
# runs the test binaries from it, and /dev/shm may be mounted noexec.
#
# The cache across runs of the tests' ledgercheck runs ($LEDGERCHECK_CACHE_DIR, unless set) is
# one directory there for every test package, removed when CMD ends: the first run of a
# configuration builds its entry, the others copy it (with a cache per package, each package
# built its own). The tests about the cache itself use caches of their own.
set -u
base=/dev/shm
free_kb=$(df -Pk "$base" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -d "$base" ] && [ -w "$base" ] && [ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] \
  && [ "${free_kb:-0}" -ge $((4 * 1024 * 1024)) ] && tmp=$(mktemp -d "$base/ledgercheck-tmp.XXXXXX"); then
  chmod 755 "$tmp" # the sandboxed server, a user of its own, goes through it to its directory
  export GOTMPDIR="${GOTMPDIR:-${TMPDIR:-/tmp}}" TMPDIR="$tmp"
else
  tmp=""
fi
cache=""
if [ -z "${LEDGERCHECK_CACHE_DIR:-}" ] && cache=$(mktemp -d "${TMPDIR:-/tmp}/ledgercheck-test-cache.XXXXXX"); then
  export LEDGERCHECK_CACHE_DIR="$cache"
fi
trap 'rm -rf ${tmp:+"$tmp"} ${cache:+"$cache"}' EXIT
"$@"
