#!/bin/sh
# Golden CLI tests. Each test is a NAME.out file (the expected standard
# output, byte for byte) with, beside it:
#   NAME.args    options for `vsc check` (optional; split on blanks)
#   NAME.files   the FILE arguments, one per line ('-' is standard input);
#                without it the FILE argument is NAME.vsc
#   NAME.stdin   what standard input holds (default: nothing, /dev/null)
#   NAME.status  the expected exit status (default 0)
#   NAME.err     the expected standard error, when it matters (optional)
# Commands run inside tests/cli. Before comparing, every "time_s":NUMBER
# becomes "time_s":T and every "solver":"NAME" becomes "solver":S, and the
# "reductions" object goes, since times vary and how `auto` decides (which
# solver, which reductions) is not part of the contract.
set -u
vsc=${1:?usage: run.sh PATH-TO-VSC}
case $vsc in /*) ;; *) vsc=$(pwd)/$vsc ;; esac
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
python=$(command -v python3 || true)

normalise() {
  sed -e 's/"time_s":[-+0-9.eE]*/"time_s":T/g' -e 's/"solver":"[^"]*"/"solver":S/g' \
    -e 's/,"reductions":{[^}]*}//g'
}

for expected in "$dir"/*.out; do
  [ -e "$expected" ] || continue
  name=${expected%.out}
  base=$(basename "$name")
  args=""
  [ -f "$name.args" ] && args=$(cat "$name.args")
  if [ -f "$name.files" ]; then
    files=$(cat "$name.files")
  else
    files="$base.vsc"
  fi
  stdin=/dev/null
  [ -f "$name.stdin" ] && stdin="$name.stdin"
  expected_status=0
  [ -f "$name.status" ] && expected_status=$(cat "$name.status")
  # shellcheck disable=SC2086
  (cd "$dir" && "$vsc" check $args $files <"$stdin" >"$tmp/raw" 2>"$tmp/err")
  status=$?
  normalise <"$tmp/raw" >"$tmp/out"
  ok=1
  # with --json every line of standard output must be a JSON object
  case " $args " in *" --json "*)
    if [ -n "$python" ] && ! "$python" -c '
import json, sys
for line in sys.stdin:
    assert isinstance(json.loads(line), dict)' <"$tmp/raw" 2>/dev/null; then
      echo "FAIL: $base: standard output is not JSON lines"
      ok=0
    fi ;;
  esac
  [ "$status" = "$expected_status" ] || ok=0
  cmp -s "$tmp/out" "$expected" || ok=0
  if [ -f "$name.err" ] && ! cmp -s "$tmp/err" "$name.err"; then
    ok=0
    echo "FAIL: $base: standard error differs"
    diff "$name.err" "$tmp/err" | head -10
  fi
  if [ "$ok" = 1 ]; then
    pass=$((pass + 1))
  else
    echo "FAIL: $base (status $status, expected $expected_status)"
    diff "$expected" "$tmp/out" | head -20
    fail=$((fail + 1))
  fi
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
