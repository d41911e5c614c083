#!/bin/sh
# vsc record --watch benchmark: cost per watched access in the target (not
# recorded vs recorded) and the access rate recorded with 0 lost, for 1 and
# 2 threads hammering one watched variable; then a small ring buffer to show
# that losses are counted. Prints a table with the machine and commit and
# appends it to bench/results/watch.txt.
#
#   bench/watch.sh [BUILD] [N]     (as root; default build, 50000 per thread)
set -u
build=$(cd "${1:-build}" && pwd)
n=${2:-50000}
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$build/vsc
tmp=$(mktemp -d /tmp/vsc-watch-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench/watch.sh: run as root" >&2; exit 2; }
cc -std=c11 -O2 -D_GNU_SOURCE -pthread "$top/tests/targets/watch_hammer.c" -o "$tmp/target" || exit 1

field() { sed -n "s/^$1 //p" "$2"; }
lost_of() { sed -n 's/^# lost events: //p' "$1"; }

out=$tmp/table
{
  echo "# vsc record --watch benchmark"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# machine: $(uname -m), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "# kernel: $(uname -r)"
  echo "# target: THREADS threads x $n (store + load) of one watched 8-byte global"
  printf '%-8s %-10s %12s %14s %12s %10s\n' threads ring ns/access accesses/s events lost
} > "$out"

run() { # THREADS RING(or "-" for not recorded)
  t=$1 ring=$2
  if [ "$ring" = - ]; then
    "$tmp/target" "$t" "$n" > "$tmp/res"
    printf '%-8s %-10s %12s %14s %12s %10s\n' "$t" "none" "$(field ns_per_access "$tmp/res")" \
      "$(field accesses_per_s "$tmp/res")" - - >> "$out"
    return
  fi
  opt=""
  [ "$ring" = default ] || opt="--ring-size $ring"
  # shellcheck disable=SC2086
  "$vsc" record --watch hot $opt -o "$tmp/trace.vsc" -- "$tmp/target" "$t" "$n" \
    > "$tmp/res" 2> "$tmp/err" || { cat "$tmp/err" >&2; return; }
  events=$(grep -c '^[0-9]' "$tmp/trace.vsc")
  printf '%-8s %-10s %12s %14s %12s %10s\n' "$t" "$ring" "$(field ns_per_access "$tmp/res")" \
    "$(field accesses_per_s "$tmp/res")" "$events" "$(lost_of "$tmp/trace.vsc")" >> "$out"
}

for t in 1 2; do
  run "$t" -
  run "$t" default
done
run 2 4096
cat "$out"
mkdir -p "$top/bench/results"
cat "$out" >> "$top/bench/results/watch.txt"
echo >> "$top/bench/results/watch.txt"
