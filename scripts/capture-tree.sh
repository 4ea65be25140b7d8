#!/usr/bin/env bash
# Copies what memleak reads for a process tree into OUTDIR, laid out as a root prefix (OUTDIR/proc/..., OUTDIR/sys/...),
# so a test (or a bug report) can replay it with `memleak snapshot --root OUTDIR PID`.
# Usage: scripts/capture-tree.sh PID OUTDIR
set -euo pipefail
pid=${1:?usage: capture-tree.sh PID OUTDIR}
out=${2:?usage: capture-tree.sh PID OUTDIR}
mkdir -p "$out/proc/self"
copy() { # copy a /proc or /sys file if readable; /proc files report size 0, so cp would copy nothing
  local src=$1
  [ -r "$src" ] || return 0
  mkdir -p "$out$(dirname "$src")"
  cat "$src" > "$out$src" 2>/dev/null || rm -f "$out$src"
}
walk() {
  local p=$1
  for f in stat status smaps_rollup cmdline cgroup; do copy "/proc/$p/$f"; done
  for t in /proc/"$p"/task/*; do
    copy "$t/children"
    for c in $(cat "$t/children" 2>/dev/null); do walk "$c"; done
  done
}
walk "$pid"
cat /proc/self/mountinfo > "$out/proc/self/mountinfo"
# The memory cgroup of the root process, v1 or v2.
memline=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' "/proc/$pid/cgroup" || true)
if [ -n "$memline" ]; then
  dir="/sys/fs/cgroup/memory${memline#*:memory:}"
else
  dir="/sys/fs/cgroup$(grep '^0::' "/proc/$pid/cgroup" | cut -d: -f3-)"
fi
for f in "$dir"/memory.{stat,current,max,peak,events,usage_in_bytes,limit_in_bytes,max_usage_in_bytes,oom_control,kmem.usage_in_bytes}; do
  copy "$f"
done
echo "captured pid $pid into $out (cgroup dir $dir)"
