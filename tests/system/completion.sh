#!/bin/bash
# The bash completion (scripts/vsc-completion.bash) offers every command
# that `vsc --help` lists, the options of `vsc check`, the solvers, and the
# families of `vsc gen`, for the vsc found first in PATH.
# Usage: tests/system/completion.sh BUILD-DIR   (run by `make check`)
set -u
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$build:$PATH
# shellcheck source=scripts/vsc-completion.bash
source "$top/scripts/vsc-completion.bash"
failures=0

complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _vsc
  echo "${COMPREPLY[*]}"
}

expect() {
  local want=$1 got
  shift
  got=" $(complete_words "$@") "
  if [[ $got != *" $want "* ]]; then
    echo "completion: FAIL: '$*<TAB>' does not offer '$want' (offers:$got)"
    failures=$((failures + 1))
  fi
}

commands=$(vsc --help | sed -n '/^commands:/,/^$/{s/^  \([a-z][a-z0-9-]*\) .*/\1/p}')
for c in $commands; do
  expect "$c" vsc ""
done
expect check vsc ch
expect --witness vsc check --wit
expect --preemptions vsc check --pre
expect --stop-command vsc record --stop
expect TERM vsc record --stop-command ""
for s in $(vsc check --help | sed -n 's/.*--solver NAME.*one of: *//p'); do
  expect "$s" vsc check --solver ""
done
if [[ " $commands " == *" gen "* ]]; then
  for f in $(vsc gen --help | sed -n '/^families:/,/^[^ ]/{s/^  \([a-z][a-z0-9-]*\) .*/\1/p}'); do
    expect "$f" vsc gen ""
  done
fi
if [ "$failures" -ne 0 ]; then
  echo "completion: $failures failed"
  exit 1
fi
echo "completion: commands, options, solvers and gen families offered: ok"
