#!/bin/sh
# LTTng path benchmark: cost per event in the target (no probes, probes not
# traced, traced by LTTng, traced by the eBPF recorder when `vsc record` is
# built) and conversion speed of `vsc convert` (events/s). Prints a table
# with the machine and commit, and appends it to bench/results/lttng.txt.
#
#   bench/lttng.sh [BUILD] [EVENTS]     (as root; default build, 1000000)
set -u
build=$(cd "${1:-build}" && pwd)
n=${2:-1000000}
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$build/vsc
tmp=$(mktemp -d /tmp/vsc-lttng-bench.XXXXXX)
daemon_pid="" session=""
cleanup() {
  [ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
  if [ -n "$daemon_pid" ]; then
    kill "$daemon_pid" 2>/dev/null
    k=0; while kill -0 "$daemon_pid" 2>/dev/null && [ $k -lt 100 ]; do sleep 0.1; k=$((k+1)); done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "bench/lttng.sh: run as root" >&2; exit 2; }
exec 9>/tmp/vsc-lttng-tests.lock
flock 9
if ! lttng list >/dev/null 2>&1; then
  lttng-sessiond --daemonize >/dev/null 2>&1 || { echo "cannot start lttng-sessiond" >&2; exit 1; }
  daemon_pid=$(cat /var/run/lttng/lttng-sessiond.pid)
fi

src=$top/tests/system/lttng_target.c
cc_target() { # OUT FLAGS...
  out=$1; shift
  cc -std=c11 -O2 -I"$top/include" "$@" "$src" -o "$out" -L"$build" -Wl,-rpath,"$build" \
    -lvsc-lttng-ust -llttng-ust -lpthread
}
cc_target "$tmp/lttng" -DVSC_PROBE_LTTNG || exit 1
have_probe_h=0
if [ -f "$top/include/vsc/probe.h" ]; then
  have_probe_h=1
  cc_target "$tmp/none" -DVSC_PROBE_DISABLE && cc_target "$tmp/usdt" || exit 1
fi

cost() { "$@" cost "$n" | sed -n 's/^ns_per_event //p'; }

# session NAME: a session that records vsc:* into $tmp/NAME, buffers big
# enough for the run, and the app blocks rather than discard.
session_start() {
  session="vscbench-$$-$1"
  lttng create "$session" --output="$tmp/$1" >/dev/null &&
  lttng enable-channel -s "$session" -u --subbuf-size=8M --num-subbuf=8 \
    --blocking-timeout=inf c >/dev/null &&
  lttng enable-event -s "$session" -c c -u 'vsc:*' >/dev/null &&
  lttng add-context -s "$session" -c c -u -t vtid -t vpid >/dev/null &&
  lttng start "$session" >/dev/null
}
session_stop() { lttng destroy "$session" >/dev/null; session=""; }

row() { printf '%-44s %s\n' "$1" "$2"; }
{
  echo "== vsc LTTng benchmark: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null), $(uname -srm)," \
    "$(nproc) cpus, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
  echo "lttng-ust $(pkg-config --modversion lttng-ust), babeltrace2 $(pkg-config --modversion babeltrace2)"
  echo "cost per event in the target: $n relaxed stores, one thread"
  [ $have_probe_h = 1 ] && row "  no probes (-DVSC_PROBE_DISABLE)" "$(cost "$tmp/none") ns"
  row "  LTTng probes, not traced" "$(cost "$tmp/lttng") ns"
  session_start cost
  row "  LTTng probes, traced (vsc:* enabled)" "$(LTTNG_UST_ALLOW_BLOCKING=1 cost "$tmp/lttng") ns"
  session_stop
  lost=$(sed -n 's/^# lost events: //p' "$tmp/cost.vsc" 2>/dev/null)
  if [ $have_probe_h = 1 ]; then
    row "  USDT probes, not traced" "$(cost "$tmp/usdt") ns"
    if "$vsc" record --help >/dev/null 2>&1; then
      t=$("$vsc" record -o "$tmp/usdt.vsc" -- "$tmp/usdt" cost "$n" 2>/dev/null | sed -n 's/^ns_per_event //p')
      row "  USDT probes, recorded by vsc record (eBPF)" "${t:-failed} ns"
    else
      row "  USDT probes, recorded by vsc record (eBPF)" "n/a (vsc record not built)"
    fi
  fi

  echo "conversion: 4 threads x $((n / 2)) stores, traced without loss"
  session_start conv
  LTTNG_UST_ALLOW_BLOCKING=1 "$tmp/lttng" flood 4 $((n / 2)) >/dev/null
  session_stop
  events=$((n * 2))
  size=$(du -sm "$tmp/conv" | cut -f1)
  t0=$(date +%s%N); "$vsc" convert --list "$tmp/conv" >/dev/null; t1=$(date +%s%N)
  "$vsc" convert -o "$tmp/conv.vsc" "$tmp/conv"; t2=$(date +%s%N)
  got=$(sed -n 's/^# events: //p' "$tmp/conv.vsc")
  row "  CTF trace" "$events events, $size MiB, $got converted"
  row "  read + convert (vsc convert --list)" \
    "$(awk -v e=$events -v ns=$((t1 - t0)) 'BEGIN{printf "%.2f s, %.2f M events/s", ns/1e9, e/(ns/1e3)}')"
  row "  read + convert + write (vsc convert -o)" \
    "$(awk -v e=$events -v ns=$((t2 - t1)) 'BEGIN{printf "%.2f s, %.2f M events/s", ns/1e9, e/(ns/1e3)}')"
  t0=$(date +%s%N); babeltrace2 "$tmp/conv" -c sink.utils.dummy >/dev/null; t1=$(date +%s%N)
  row "  babeltrace2 alone (source.ctf.fs, muxer, dummy)" \
    "$(awk -v e=$events -v ns=$((t1 - t0)) 'BEGIN{printf "%.2f s, %.2f M events/s", ns/1e9, e/(ns/1e3)}')"
} | tee -a "$top/bench/results/lttng.txt"
