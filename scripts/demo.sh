#!/bin/sh
# The demo behind `make demo`: decide the bundled example traces in
# docs/examples/ with `vsc check --min --witness`, say what each one shows,
# and check each verdict against the `# expect:` line of its file. Then run
# every other scripts/demo-*.sh that exists (recording demos: each one
# prints why and exits 0 when this machine cannot run it).
# Usage: scripts/demo.sh [PATH-TO-VSC]   (default build/vsc)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vsc=${1:-build/vsc}
case $vsc in
/*) ;;
*) vsc=$(pwd)/$vsc ;;
esac
if [ ! -x "$vsc" ]; then
  echo "demo: $vsc is missing; run make first" >&2
  exit 2
fi
cd "$root" || exit 2

failures=0
examples=0

# Print the leading comment block of a trace (what the example shows).
describe() {
  sed -n '/^#/!{/^vsc /d;q;};s/^# \{0,1\}//;/^expect:/d;/^lost events:/d;s/^/  | /;p' "$1"
}

# run EXPECTED ARGS... : show and run `vsc ARGS`, compare the first line.
run() {
  expected=$1
  shift
  echo "\$ vsc $*"
  out=$("$vsc" "$@")
  status=$?
  printf '%s\n' "$out" | sed 's/^/    /'
  verdict=$(printf '%s\n' "$out" | sed -n 1p)
  if [ "$verdict" = "$expected" ]; then
    echo "  -> $verdict, as expected (exit status $status)"
  else
    echo "  -> UNEXPECTED: got '$verdict' (exit status $status), expected '$expected'"
    failures=$((failures + 1))
  fi
  echo
}

# The teaching order first, then any other example.
ordered="message_passing store_buffering ping_pong lab_runs"
others=$(for f in docs/examples/*.vsc; do
  case " $ordered " in *" $(basename "$f" .vsc) "*) ;; *) echo "$f" ;; esac
done)
for f in $(for n in $ordered; do echo "docs/examples/$n.vsc"; done) $others; do
  [ -e "$f" ] || continue
  examples=$((examples + 1))
  expected=$(sed -n 's/^# expect: \([a-z]*\).*/\1/p' "$f" | head -n 1)
  echo "=== $(basename "$f" .vsc) ==="
  describe "$f"
  echo
  run "$expected" check --min --witness "$f"
  # Why is store buffering not SC? A minimal core and the cycle of orders.
  if [ "$(basename "$f")" = store_buffering.vsc ]; then
    run inconsistent check --explain "$f"
  fi
  # The 1-Writer example: one preemption fewer than the least is not enough.
  if [ "$(basename "$f")" = ping_pong.vsc ]; then
    least=$("$vsc" check --min "$f" | sed -n 's/^preemptions: \([0-9]*\).*/\1/p')
    if [ -n "$least" ] && [ "$least" -gt 0 ]; then
      run inconsistent check -p $((least - 1)) "$f"
      run consistent check -p "$least" "$f"
    fi
  fi
done

echo "=== the same answers as JSON (one object per file) ==="
echo "\$ vsc check --json docs/examples/store_buffering.vsc docs/examples/message_passing.vsc"
"$vsc" check --json docs/examples/store_buffering.vsc docs/examples/message_passing.vsc
echo

if [ "$failures" -ne 0 ]; then
  echo "demo: $failures of the checks above gave an unexpected verdict" >&2
  exit 1
fi
echo "demo: $examples example traces decided, every verdict as expected"

# Capture demos of other parts (eBPF recording, LTTng), when they exist.
for extra in scripts/demo-*.sh; do
  [ -f "$extra" ] || continue
  echo
  echo "=== $extra ==="
  sh "$extra" "$vsc" || { echo "demo: $extra failed" >&2; exit 1; }
done
exit 0
