#!/bin/sh
# The trace writer alone (bench/trace_writer_bench.c): a synthetic capture
# source of 10^6 ... 10^7 events from 4 threads, and lab-like runs of
# 200,000 and 2,000,000 two-thread segments, written to a file next to the
# results. Prints events/s (wall, CPU) and peak RSS; the table goes to
# bench/results/trace_writer.txt.
set -eu
bench=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/bench/results/trace_writer.txt
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/vsc-twbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
run() { # EVENTS THREADS PER_SEGMENT LABEL
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$bench" "$1" "$2" "$3" "$tmp/out.vsc" > "$tmp/line"
  read -r user sys < "$tmp/time"
  events=$(sed 's/.*events \([0-9]*\) .*/\1/' "$tmp/line")
  rss=$(sed 's/.*peak_rss_mb \([0-9.]*\).*/\1/' "$tmp/line")
  wall=$(awk '{print $8 + $10}' "$tmp/line")
  mb=$(($(stat -c %s "$tmp/out.vsc") / 1048576))
  printf '  %-34s %9s events %6s MB  wall %6.2f s  CPU %6.2f s  %5.2f M events/s CPU  peak RSS %6s MB\n' \
    "$4" "$events" "$mb" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(echo "scale=2; $events / ($user + $sys + 0.001) / 1000000" | bc)" "$rss"
  rm -f "$tmp/out.vsc"
}
{
  echo "== vsc trace writer benchmark: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo ?), $(uname -sr) $(uname -m), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "synthetic capture events in batches of 256 per thread, written to a file (header, trailer)"
  run 1000000 4 0 "10^6 events, 4 threads"
  run 10000000 4 0 "10^7 events, 4 threads"
  run 1600000 2 4 "200,000 segments x 2 threads x 4"
  run 16000000 2 4 "2,000,000 segments x 2 threads x 4"
} | tee "$out"
