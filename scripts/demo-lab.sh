#!/bin/sh
# The lab example: the store-buffering litmus test (tests/targets/lab_sb.c,
# with <vsc/lab.h>) run for many iterations, one segment each, recorded with
# `vsc record` and reported with `vsc check --summary`. On x86-64 some
# iterations show the TSO outcome (both reads see 0): vsc reports exactly
# those as inconsistent, each with a four-event core.
set -u
vsc=${1:-build/vsc}
target=$(dirname "$vsc")/targets/lab_sb
iterations=${VSC_LAB_ITERATIONS:-20000}
if [ "$(id -u)" != 0 ]; then
  echo "demo-lab: skipped: recording with eBPF needs root"
  exit 0
fi
[ -x "$target" ] || { echo "demo-lab: $target not built (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "\$ vsc record -o sb.vsc -- $target $iterations outcomes.txt"
"$vsc" record -o "$tmp/sb.vsc" -- "$target" "$iterations" "$tmp/outcomes.txt" || exit 1
echo "\$ vsc check --summary sb.vsc"
"$vsc" check --summary "$tmp/sb.vsc" | head -20
first=$(awk '$2 == 0 && $3 == 0 { print $1; exit }' "$tmp/outcomes.txt")
if [ -n "$first" ]; then
  echo "\$ vsc check --explain (iteration $first, where both reads saw 0)"
  awk -v seg="$first" '
    /^segment / { keep = ($2 == seg) }
    /^vsc 1/ || keep' "$tmp/sb.vsc" > "$tmp/one.vsc"
  "$vsc" check --explain "$tmp/one.vsc"
else
  echo "demo-lab: this run showed no TSO outcome (the hardware decides); all iterations consistent"
fi
exit 0
