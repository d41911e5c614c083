#!/bin/sh
# The capture paths at real length, with default options (as root):
#  1. LTTng: tests/system/lttng_stress.sh at length (spinlock, SPSC ring,
#     seqlock, lab store buffering: 4-17 M events each through
#     scripts/vsc-lttng, then LTTng's own discard defaults by hand): events,
#     lost, CTF size, conversion CPU and peak RSS, verdict, check CPU/RSS.
#  2. Hardware watchpoints: watch_hammer, 4 threads x 1.25 M (store + load)
#     of one watched variable (10 M events): events, lost, stray traps,
#     the recorder's wall time and peak RSS, the verdict.
#  3. The recorder's memory over a long recording (bench/record_memory.sh):
#     a busy spinlock and a pool of short-lived threads, MINUTES each.
#
#   bench/capture_length.sh BUILD [MINUTES]      (default 12)
# Traces go to a temporary folder and are deleted as soon as measured
# (at length they take GBs).
set -u
build=$(cd "${1:?usage: capture_length.sh BUILD [MINUTES]}" && pwd)
minutes=${2:-12}
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$build/vsc
[ "$(id -u)" = 0 ] || { echo "capture_length: needs root"; exit 0; }
work=$(mktemp -d /tmp/vsc-capture-length.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
echo "== capture at length: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$top" rev-parse --short HEAD)," \
  "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "-- 1. LTTng"
"$top/tests/system/lttng_stress.sh" "$build" length

echo "-- 2. hardware watchpoints"
/usr/bin/time -f '%e %M' -o "$work/time" "$vsc" record --watch hot -o "$work/watch.vsc" -- \
  "$build/targets/watch_hammer" 4 1250000 >"$work/out" 2>&1
echo "record: status $?, $(cat "$work/time" | awk '{ printf "%.1f s wall, peak RSS %d MiB", $1, $2 / 1024 }')"
grep '^# \(events\|lost events\|watchpoint hits\|debug traps\|accesses not\|uncertain\)' "$work/watch.vsc"
tail -1 "$work/watch.vsc"
# (at 10^7 events of one variable with 4 writers the check is long and big:
# 300 s and 6 GB without a cap; 60 s and 4 GB here)
(ulimit -v 4194304; /usr/bin/time -f '%U %S %M' -o "$work/time" "$vsc" check --timeout 60 \
  "$work/watch.vsc" >"$work/v" 2>&1)
echo "vsc check: $(head -1 "$work/v"), $(awk '{ printf "%.2f s CPU, %d MiB", $1 + $2, $3 / 1024 }' "$work/time")"
rm -f "$work/watch.vsc"

echo "-- 3. the recorder's memory over $minutes minutes"
for program in spinlock pool; do
  "$top/bench/record_memory.sh" "$build" $((minutes * 60)) 30 "$program" | tail -1
done
