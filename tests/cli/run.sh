#!/bin/sh
# Golden CLI tests: for each tests/cli/NAME.vsc, run `vsc check` with the
# options in NAME.args (if any) and compare stdout and the exit status with
# NAME.out and NAME.status.
set -u
vsc=${1:?usage: run.sh PATH-TO-VSC}
dir=$(dirname "$0")
pass=0 fail=0
for input in "$dir"/*.vsc; do
  [ -e "$input" ] || continue
  name=${input%.vsc}
  args=""
  [ -f "$name.args" ] && args=$(cat "$name.args")
  expected_status=0
  [ -f "$name.status" ] && expected_status=$(cat "$name.status")
  # shellcheck disable=SC2086
  actual=$(cd "$dir" && "$OLDPWD/$vsc" check $args "$(basename "$input")" 2>/dev/null)
  status=$?
  if [ "$status" != "$expected_status" ] || ! printf '%s\n' "$actual" | cmp -s - "$name.out"; then
    echo "FAIL: $input (status $status, expected $expected_status)"
    printf '%s\n' "$actual" | diff "$name.out" - | head -20
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
