#!/usr/bin/env bash
# intmp.sh CMD [ARG...] runs CMD with its temporary files ($TMPDIR) in a directory of their own
# in memory, removed when CMD ends, when /dev/shm is a writable tmpfs with at least 4 GiB free;
# otherwise it runs CMD as it is. The test suite writes about 12 GB of temporary files (cache
# entries, repositories, clones), a gigabyte at most at a time; on disk they cost a third of its
# system time. go's build directory stays where it was ($GOTMPDIR): go runs the test binaries
# from it, and /dev/shm may be mounted noexec.
set -u
base=/dev/shm
free_kb=$(df -Pk "$base" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -d "$base" ] && [ -w "$base" ] && [ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] \
  && [ "${free_kb:-0}" -ge $((4 * 1024 * 1024)) ] && tmp=$(mktemp -d "$base/ledgercheck-tmp.XXXXXX"); then
  trap 'rm -rf "$tmp"' EXIT
  chmod 755 "$tmp" # the sandboxed server, a user of its own, goes through it to its directory
  export GOTMPDIR="${GOTMPDIR:-${TMPDIR:-/tmp}}" TMPDIR="$tmp"
fi
"$@"
