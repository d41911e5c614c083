#!/bin/sh
# eBPF probe path benchmark (vsc record): cost per probe in the target,
# untraced and traced, and the highest event rate recorded with 0 lost from
# 4 threads with the default ring buffer. Prints a table with the machine and
# commit and appends it to bench/results/probe.txt.
#   bench/probe_cost.sh [BUILD] [EVENTS]    (as root; default build 2000000)
set -u
build=$(cd "${1:-build}" && pwd)
n=${2:-2000000}
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$build/vsc
tmp=$(mktemp -d /tmp/vsc-probe-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench/probe_cost.sh: run as root" >&2; exit 2; }
[ -x "$vsc" ] || { echo "bench/probe_cost.sh: build $vsc first (make)" >&2; exit 2; }

cflags="-std=c11 -D_GNU_SOURCE -O2 -I$top/include"
cc $cflags "$top/bench/probe_bench.c" -o "$tmp/probes" -lpthread || exit 1
cc $cflags -DVSC_PROBE_DISABLE "$top/bench/probe_bench.c" -o "$tmp/plain" -lpthread || exit 1

median3() { sort -n | sed -n 2p; }
# cost: CPU time of the storing thread per event (wall in parentheses), median of 3
cost() { # LABEL CMD...
  label=$1; shift
  for i in 1 2 3; do "$@" 2>/dev/null | tail -1; done > "$tmp/cost"
  cpu=$(cut -d' ' -f1 "$tmp/cost" | median3)
  wall=$(cut -d' ' -f2 "$tmp/cost" | median3)
  printf '  %-44s %8s ns (%s ns wall)\n' "$label" "$cpu" "$wall"
}

out=$tmp/table
{
  echo "== vsc eBPF probe benchmark: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'), $(uname -sr) $(uname -m), $(nproc) cpus, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
  echo "cost per event in the target: $n relaxed 8-byte stores, one thread; CPU time of the thread"
  cost "no probes (-DVSC_PROBE_DISABLE)" "$tmp/plain" cost "$n"
  cost "USDT probes, not traced" "$tmp/probes" cost "$n"
  cost "USDT probes, recorded by vsc record" "$vsc" record -o /dev/null -- "$tmp/probes" cost "$n"
  echo "highest rate recorded with 0 lost: 4 threads, default ring buffer, 1 s per step"
  best=0
  for total in 250000 500000 1000000 2000000 4000000 8000000; do
    per=$((total / 4))
    "$vsc" record -o /dev/null -- "$tmp/probes" rate 4 "$per" "$per" > "$tmp/rate" 2> "$tmp/err"
    got=$(tail -1 "$tmp/rate")
    lost=$(sed -n 's/.* \([0-9]*\) lost.*/\1/p' "$tmp/err" | head -1)
    printf '  asked %8d/s  achieved %8s/s  lost %s of %d\n' "$total" "$got" "${lost:-?}" $((per * 4))
    if [ "${lost:-1}" = 0 ]; then best=$got; else break; fi
  done
  echo "  highest with 0 lost: $best events/s"
} | tee "$out"
mkdir -p "$top/bench/results"
cat "$out" >> "$top/bench/results/probe.txt"
