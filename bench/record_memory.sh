#!/bin/sh
# The recorder's memory over a long recording: `vsc record` (eBPF probes,
# default options) of a busy program for SECONDS, the trace streamed to a
# pipe that keeps only its end (no disk), the recorder's RSS sampled every
# STEP seconds. Prints the samples and a summary line: first, last and peak
# RSS after the first minute, events, lost, the recorder's CPU.
#
#   bench/record_memory.sh BUILD SECONDS [STEP] [PROGRAM]     (as root)
# PROGRAM: spinlock (4 threads around one counter, the default) or pool
# (short-lived threads, 2 per round: thread ids are used again and again).
set -u
build=$(cd "${1:?usage: record_memory.sh BUILD SECONDS [STEP] [PROGRAM]}" && pwd)
seconds=${2:?usage: record_memory.sh BUILD SECONDS [STEP] [PROGRAM]}
step=${3:-15}
program=${4:-spinlock}
[ "$(id -u)" = 0 ] || { echo "record_memory: needs root (BPF, uprobes)"; exit 0; }
case $program in
  spinlock) set -- "$build/targets/stress_spinlock" 4 2000000000 ;;
  pool) set -- "$build/targets/stress_pool" 0 2 200 ;;
  *) echo "record_memory: PROGRAM is spinlock or pool" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/vsc-record-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# The recorder's pid: the `vsc` process whose parent is this shell's pipeline.
"$build/vsc" record --duration "$seconds" --stop-command KILL -o - -- "$@" 2>"$work/err" |
  tail -c 400 >"$work/tail" &
sleep 2
rec=$(pgrep -n -f "^$build/vsc record --duration $seconds ")
[ -n "$rec" ] || { echo "record_memory: the recorder did not start: $(cat "$work/err")"; exit 1; }
echo "# recorder pid $rec, $program, $seconds s, RSS every $step s; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# seconds  RSS_kB  recorder_CPU_s"
t=0
while kill -0 "$rec" 2>/dev/null; do
  rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$rec/status" 2>/dev/null)
  cpu=$(awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$rec/stat" 2>/dev/null)
  [ -n "$rss" ] && echo "$t $rss $cpu" | tee -a "$work/samples"
  sleep "$step"
  t=$((t + step))
done
wait
trailer=$(grep '^# end of trace' "$work/tail")
awk -v s="$step" -v tr="$trailer" '
  $1 >= 60 { if (!n++) first = $2; last = $2; if ($2 > peak) peak = $2; cpu = $3 }
  END { printf "summary: RSS after 1 min %d kB, at the end %d kB, peak %d kB (growth %d kB); recorder CPU %.1f s; %s\n",
    first, last, peak, last - first, cpu, tr }' "$work/samples"
[ -n "$trailer" ] || { echo "record_memory: no trailer: $(tail -3 "$work/err")"; exit 1; }
