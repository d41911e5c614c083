#!/bin/sh
# Benchmark of the eBPF probe path on real-shaped programs (make bench):
# events/s with 0 lost (default, back-pressure) and with --lossy, recorder
# CPU per event and peak RSS, then the long stress and fault tests.
#   bench/record_stress.sh BUILD [rows]
# Prints a table and appends it to bench/results/record_stress.md; "rows"
# leaves out the long stress and fault tests.
set -u
build=${1:?usage: record_stress.sh BUILD}
vsc=$build/vsc
targets=$build/targets
out=bench/results/record_stress.md
work=$(mktemp -d /tmp/vsc-bench-record.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
[ "$(id -u)" = 0 ] || { echo "bench-record-stress: needs root (BPF, uprobes)"; exit 0; }

row() { # NAME MODE CMD...
  name=$1 mode=$2; shift 2
  flag=; [ "$mode" = drop ] && flag=--lossy
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$vsc" record $flag -o "$work/t.vsc" -- "$@" \
    > /dev/null 2>&1
  set -- $(tail -1 "$work/time")
  wall=$1 cpu=$(echo "$2 + $3" | bc) rss=$4
  events=$(sed -n 's/^# events: //p' "$work/t.vsc")
  lost=$(sed -n 's/^# lost events: //p' "$work/t.vsc")
  awk -v n="$name" -v m="$mode" -v e="$events" -v l="$lost" -v w="$wall" -v c="$cpu" -v r="$rss" \
    'BEGIN { printf "| %s | %s | %d | %s | %.2f | %.2f | %.0f | %d |\n", n, m, e, l, w, e / w / 1e6, c * 1e9 / (e + 0.001), r / 1024 }'
}

{
  echo "## $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| program | loss mode | events | lost | wall s | M events/s | recorder CPU ns/event | recorder peak RSS MB |"
  echo "|---|---|---|---|---|---|---|---|"
  for mode in block drop; do
    row "spinlock 4x250000" $mode "$targets/stress_spinlock" 4 250000
    row "spsc seqcst 200000" $mode "$targets/stress_spsc" 200000 seqcst
    row "spsc relaxed 200000" $mode "$targets/stress_spsc" 200000 relaxed
    row "seqlock 2 readers, 500000 writes" $mode "$targets/stress_seqlock" 2 500000
    row "lab sb 300000" $mode "$targets/lab_sb" 300000 "$work/lab.out"
    row "lab sb 1000000" $mode "$targets/lab_sb" 1000000 "$work/lab.out"
  done
  echo
} | tee -a "$out"
[ "${2:-}" = rows ] && exit 0
tests/system/stress.sh "$vsc" "$targets" long | tail -3 | tee -a "$out"
