#!/bin/sh
# The eBPF recording demo (run by scripts/demo.sh after the examples):
# record the bundled probe targets with `vsc record` and decide the traces.
#   message passing (by command)  -> consistent
#   spinlock, 4 threads           -> consistent
#   store buffering, in a loop    -> inconsistent when the hardware showed
#                                    the TSO outcome, which the target counts
#   message passing by PID, stopped with SIGINT mid-run -> consistent
# Usage: scripts/demo-record.sh [PATH-TO-VSC]   (needs root; the targets are
# built by `make` into BUILD/targets)
set -u
vsc=${1:-build/vsc}
targets=$(dirname "$vsc")/targets
if [ "$(id -u)" != 0 ]; then
  echo "demo-record: skipped: recording with eBPF needs root"
  exit 0
fi
if [ ! -d /sys/bus/event_source/devices/uprobe ]; then
  echo "demo-record: skipped: this kernel has no uprobes"
  exit 0
fi
for t in mp spinlock sb; do
  [ -x "$targets/probe_$t" ] || { echo "demo-record: $targets/probe_$t not built (make)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0

verdict() { # EXPECTED FILE
  out=$("$vsc" check "$2" 2>&1)
  printf '%s\n' "$out" | sed 's/^/    /'
  if [ "$(printf '%s\n' "$out" | grep -v '^vsc: warning' | head -1)" != "$1" ]; then
    echo "  -> UNEXPECTED (expected $1)"
    failures=$((failures + 1))
  fi
}

echo "\$ vsc record -o mp.vsc -- probe_mp - 300"
"$vsc" record -o "$tmp/mp.vsc" -- "$targets/probe_mp" - 300 || exit 1
echo "  the trace starts:"
sed -n '1,16p' "$tmp/mp.vsc" | sed 's/^/    /'
echo "\$ vsc check mp.vsc"
verdict consistent "$tmp/mp.vsc"

echo "\$ vsc record -o spinlock.vsc -- probe_spinlock - 200"
"$vsc" record -o "$tmp/spinlock.vsc" -- "$targets/probe_spinlock" - 200 || exit 1
echo "\$ vsc check spinlock.vsc"
verdict consistent "$tmp/spinlock.vsc"

echo "\$ vsc record -o sb.vsc -- probe_sb - 2000"
"$vsc" record -o "$tmp/sb.vsc" -- "$targets/probe_sb" - 2000 2> "$tmp/sb.err" || exit 1
cat "$tmp/sb.err"
both=$(sed -n 's/^probe_sb: \([0-9]*\) of .*/\1/p' "$tmp/sb.err")
echo "\$ vsc check sb.vsc"
if [ "${both:-0}" -gt 0 ]; then
  echo "  (the store buffer let both reads see 0 in $both iterations: not SC)"
  verdict inconsistent "$tmp/sb.vsc"
else
  echo "  (no iteration showed the TSO outcome this time)"
  verdict consistent "$tmp/sb.vsc"
fi

echo "\$ probe_mp - 0 --wait --pace 1 &   # runs until stopped"
"$targets/probe_mp" - 0 --wait --pace 1 > "$tmp/ready" &
pid=$!
while ! grep -q ready "$tmp/ready" 2>/dev/null; do sleep 0.1; done
echo "\$ vsc record -p $pid -o live.vsc   # then ^C after a moment"
"$vsc" record -v -p "$pid" -o "$tmp/live.vsc" 2> "$tmp/live.err" &
rec=$!
while ! grep -q recording "$tmp/live.err" 2>/dev/null; do sleep 0.1; done
kill -USR1 "$pid"
sleep 0.3
kill -INT "$rec"
wait "$rec"
grep -v '^vsc record: recording' "$tmp/live.err" | sed 's/^/    /'
echo "\$ vsc check live.vsc"
verdict consistent "$tmp/live.vsc"
kill -TERM "$pid"; wait "$pid"; pid=""

[ "$failures" -eq 0 ] || { echo "demo-record: $failures unexpected verdicts" >&2; exit 1; }
echo "demo-record: 4 recordings decided as expected"
