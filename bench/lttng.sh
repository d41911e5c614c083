#!/bin/sh
# LTTng path benchmark: cost per event in the target (no probes, probes not
# traced, traced by LTTng, traced by the eBPF recorder when `vsc record` is
# built) and conversion speed of `vsc convert` (events/s). Prints a table
# with the machine and commit, and appends it to bench/results/lttng.txt.
#
# Every figure is given twice: by CPU time (the target thread's own CPU time;
# the converter's user + system time), which other load on a shared machine
# does not inflate, and by wall-clock time.
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
# (the same lock as scripts/vsc-lttng, which then knows not to take it again)
exec 9>>/tmp/vsc-lttng.lock
flock -w 1800 9 || { echo "lttng: FAIL: another LTTng run holds /tmp/vsc-lttng.lock"; exit 1; }
VSC_LTTNG_LOCKED=1; export VSC_LTTNG_LOCKED
if ! lttng list >/dev/null 2>&1; then
  lttng-sessiond --daemonize >/dev/null 2>&1 9>&- || { echo "cannot start lttng-sessiond" >&2; exit 1; }
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

# cost CMD...: "CPU ns (wall ns)" per event of CMD cost N
cost() {
  "$@" cost "$n" >"$tmp/cost.out" || { echo failed; return; }
  echo "$(sed -n 's/^cpu_ns_per_event //p' "$tmp/cost.out") ns ($(sed -n 's/^ns_per_event //p' "$tmp/cost.out") ns wall)"
}
# rate NAME CMD...: events/s of CMD by CPU time (user + system) and by wall time
rate() {
  name=$1; shift
  /usr/bin/time -f '%U %S %e' -o "$tmp/time" "$@" >/dev/null || { row "$name" failed; return; }
  read -r user sys wall <"$tmp/time"
  row "$name" "$(awk -v e="$events" -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN{
    c = u + s; if (c <= 0) c = 0.01; if (w <= 0) w = 0.01;
    printf "%.2f M events/s (%.2f s CPU); wall %.2f s, %.2f M events/s", e/c/1e6, c, w, e/w/1e6}')"
}

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
  echo "cost per event in the target: $n relaxed stores, one thread; CPU time of the thread (wall)"
  [ $have_probe_h = 1 ] && row "  no probes (-DVSC_PROBE_DISABLE)" "$(cost "$tmp/none")"
  row "  LTTng probes, not traced" "$(cost "$tmp/lttng")"
  session_start cost
  row "  LTTng probes, traced (vsc:* enabled)" "$(LTTNG_UST_ALLOW_BLOCKING=1 cost "$tmp/lttng")"
  session_stop
  if [ $have_probe_h = 1 ]; then
    row "  USDT probes, not traced" "$(cost "$tmp/usdt")"
    if "$vsc" record --help >/dev/null 2>&1; then
      row "  USDT probes, recorded by vsc record (eBPF)" "$(cost "$vsc" record -o "$tmp/usdt.vsc" -- "$tmp/usdt" 2>/dev/null)"
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
  "$vsc" convert -o "$tmp/conv.vsc" "$tmp/conv"
  got=$(sed -n 's/^# events: //p' "$tmp/conv.vsc")
  row "  CTF trace" "$events events, $size MiB, $got converted"
  rate "  read + convert (vsc convert --list)" "$vsc" convert --list "$tmp/conv"
  rate "  read + convert + write (vsc convert -o)" "$vsc" convert -o "$tmp/conv.vsc" "$tmp/conv"
  rate "  babeltrace2 alone (ctf.fs, muxer, dummy)" babeltrace2 "$tmp/conv" -c sink.utils.dummy
} | tee -a "$top/bench/results/lttng.txt"

# Real-shaped programs through scripts/vsc-lttng with its default options
# (blocking): >= 1 M events each, 0 lost, events/s, CPU per event, RSS.
"$top/tests/system/lttng_stress.sh" "$build" long "$top/bench/results/lttng.txt"
