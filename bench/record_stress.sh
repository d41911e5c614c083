#!/bin/sh
# Benchmark of the eBPF probe path on real-shaped programs (make bench):
# events/s with 0 lost (default, back-pressure) and with --lossy, recorder
# CPU per event and peak RSS; then `vsc check` on each trace recorded with
# default options (a recorded trace at 10^6-10^7 events, beside `wc -l` on
# the same file); then the long stress and fault tests, and the kill tests
# repeated 10 times.
#   bench/record_stress.sh BUILD [rows]
# Prints the tables and appends them to bench/results/record_stress.md;
# "rows" leaves out the long stress and fault tests.
set -u
build=${1:?usage: record_stress.sh BUILD}
vsc=$build/vsc
targets=$build/targets
out=bench/results/record_stress.md
work=$(mktemp -d /tmp/vsc-bench-record.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
: > "$work/checks"
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
  [ "$mode" = block ] && check_row "$name" "$events"
}

cpu_of() { # CPU seconds (user + system) of COMMAND..., from /usr/bin/time
  /usr/bin/time -f "%U %S %M" -o "$work/ctime" "$@" > "$work/cout" 2>&1
  # the last line: time puts "Command exited with non-zero status N" first
  awk 'END { printf "%.3f %d", $1 + $2, $3 }' "$work/ctime"
}

# check_row NAME EVENTS: vsc check (no bound, then --min) on the trace just
# recorded, with wc -l on the same file (ten runs: one is below the timer)
check_row() {
  wc10=$(cpu_of sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do wc -l "$0"; done' "$work/t.vsc")
  wc_cpu=$(echo "$wc10" | awk '{ printf "%.4f", $1 / 10 }')
  set -- "$1" "$2" $(cpu_of "$vsc" check --timeout 300 "$work/t.vsc")
  verdict=$(head -1 "$work/cout")
  set -- "$@" $(cpu_of "$vsc" check --min --timeout 300 "$work/t.vsc")
  least=$(grep -m1 '^least\|^preemptions' "$work/cout" | tr -d '\n')
  [ -n "$least" ] || least=$(head -1 "$work/cout")
  awk -v n="$1" -v e="$2" -v c="$3" -v r="$4" -v m="$5" -v mr="$6" -v wc="$wc_cpu" \
    -v v="$verdict" -v l="$least" -v mb="$(wc -c < "$work/t.vsc")" \
    'BEGIN { printf "| %s | %d | %.0f | %s | %.2f | %.0f | %.0f | %s | %.2f | %.0f |\n",
      n, e, mb / 1048576, v, c, (wc > 0 ? c / wc : 0), r * 1024 / (e + 0.001), l, m, mr * 1024 / (e + 0.001) }' \
    >> "$work/checks"
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
  echo "\`vsc check\` on the traces recorded with default options (CPU = user + system; wc -l: CPU of one run, the mean of ten; B/event = peak RSS / events):"
  echo
  echo "| program | events | MB | verdict | CPU s | / wc -l | B/event | --min | --min CPU s | --min B/event |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  cat "$work/checks"
  echo
} | tee -a "$out"
[ "${2:-}" = rows ] && exit 0
tests/system/stress.sh "$vsc" "$targets" long | tail -3 | tee -a "$out"
# the killed and exiting targets' races, 10 times each (make check: once)
tests/system/kill.sh "$vsc" "$targets" 10 | tail -3 | tee -a "$out"
