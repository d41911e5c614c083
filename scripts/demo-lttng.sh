#!/bin/sh
# The LTTng part of `make demo` (run by scripts/demo.sh when present): build
# the LTTng test target (tests/system/lttng_target.c, -DVSC_PROBE_LTTNG),
# trace a real store-buffering litmus loop with scripts/vsc-lttng (one
# segment per iteration), convert and decide it; then a run whose outcome is
# known to be not SC. When this machine cannot trace with LTTng, it says why
# and exits 0: the demo is not a test (tests/system/lttng.sh is).
# Usage: scripts/demo-lttng.sh PATH-TO-VSC
set -u
vsc=${1:?usage: demo-lttng.sh PATH-TO-VSC}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "$vsc")

skip() {
  echo "LTTng demo skipped: $*"
  exit 0
}
for c in lttng lttng-sessiond cc; do
  command -v "$c" >/dev/null 2>&1 || skip "no '$c' command (scripts/deps.sh installs it)"
done
[ -f "$build/libvsc-lttng-ust.so" ] || skip "$build/libvsc-lttng-ust.so was not built"
[ -x "$root/scripts/vsc-lttng" ] || skip "scripts/vsc-lttng is missing"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
home_opt=""
[ "$(id -u)" -eq 0 ] || home_opt="--lttng-home $tmp/home"

if ! cc -std=c11 -O2 -DVSC_PROBE_LTTNG -I"$root/include" "$root/tests/system/lttng_target.c" \
  -o "$tmp/litmus" -L"$build" -lvsc-lttng-ust -llttng-ust -lpthread \
  -Wl,-rpath,"$(cd "$build" && pwd)" 2>"$tmp/cc.log"; then
  cat "$tmp/cc.log"
  skip "cannot build the LTTng target"
fi

iters=1000
echo "Two threads run a store-buffering litmus test $iters times: each stores"
echo "1 to its own variable, then loads the other's, with relaxed atomics. Each"
echo "access fires an LTTng-UST tracepoint; each iteration is one segment."
echo "(The tracepoints themselves change the timing, and their atomic"
echo "operations order memory, so a weak outcome may not show up here.)"
echo
echo "\$ scripts/vsc-lttng -o sb.vsc -c --summary -- ./litmus segments $iters"
# shellcheck disable=SC2086
"$root/scripts/vsc-lttng" --vsc "$vsc" $home_opt -o "$tmp/sb.vsc" -c "--summary" \
  -- "$tmp/litmus" segments "$iters" 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ]; then
  cat "$tmp/err"
  skip "tracing with LTTng failed here (status 2)"
fi
echo
echo "The head of the converted trace:"
sed -n '1,16p' "$tmp/sb.vsc" | sed 's/^/    /'
echo "    ..."
echo
echo "A run whose probes report the store-buffering outcome both-read-0 (the"
echo "target reports these values on purpose, so the verdict is known):"
echo "\$ scripts/vsc-lttng -c --explain -- ./litmus sb-weak"
# shellcheck disable=SC2086
"$root/scripts/vsc-lttng" --vsc "$vsc" $home_opt -c "--explain" -- "$tmp/litmus" sb-weak \
  2>"$tmp/err"
status=$?
if [ "$status" -ne 1 ]; then
  cat "$tmp/err"
  echo "LTTng demo: expected inconsistent (status 1), got status $status" >&2
  exit 1
fi
echo "  -> inconsistent, as expected"
exit 0
