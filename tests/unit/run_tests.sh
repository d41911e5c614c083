#!/bin/sh
# Run test programs a few at a time and print each one's output whole, in
# the order given, as "== [LABEL ]PROGRAM" and its lines (make check-unit,
# check-asan, check-arm64). Every program runs, also after one fails; the
# exit status is 1 when any failed (each named at the end), else 0.
#   tests/unit/run_tests.sh [-j JOBS] [-r RUNNER] [-l LABEL] PROGRAM...
# -j: how many at once (default 2); -r: a command each program runs under
# (words, e.g. "qemu-aarch64 -cpu cortex-a57"); -l: said before each name.
# The programs are independent (each makes its own temporary files) and
# single-threaded but for a few short contention tests: on a machine of N
# cores, N at a time take about 1/N of the time one at a time takes.
set -u
usage="usage: run_tests.sh [-j JOBS] [-r RUNNER] [-l LABEL] PROGRAM..."
jobs=2 runner='' label=''
while getopts j:r:l: opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    r) runner=$OPTARG ;;
    l) label="$OPTARG " ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

tmp=$(mktemp -d /tmp/vsc-run-tests.XXXXXX)
xpid=
# (xargs, when this script is stopped early)
trap '[ -z "$xpid" ] || kill -TERM "$xpid" 2> /dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# one line per program: its number and its path
i=0
for t; do
  i=$((i + 1))
  printf '%s %s\n' "$i" "$t"
done > "$tmp/list"
n=$i

export RUN_TESTS_RUNNER="$runner"
# xargs runs them JOBS at a time; each writes its output, then its status
# (moved in whole: a status file seen is complete)
# shellcheck disable=SC2016 # expanded by the inner shell
xargs -P "$jobs" -L 1 sh -c '
  tmp=$1 i=$2 t=$3
  # shellcheck disable=SC2086 # the runner is words
  $RUN_TESTS_RUNNER "$t" > "$tmp/$i.out" 2>&1
  echo $? > "$tmp/$i.st" && mv "$tmp/$i.st" "$tmp/$i.rc"' sh "$tmp" \
  < "$tmp/list" &
xpid=$!

failed=
i=0
for t; do
  i=$((i + 1))
  while [ ! -e "$tmp/$i.rc" ]; do
    if ! kill -0 "$xpid" 2> /dev/null; then
      [ -e "$tmp/$i.rc" ] && break
      echo "run_tests: $t did not run" >&2
      failed="$failed $t"
      continue 2
    fi
    sleep 0.1
  done
  echo "== $label$t"
  cat "$tmp/$i.out"
  rc=$(cat "$tmp/$i.rc")
  if [ "$rc" != 0 ]; then
    echo "run_tests: $t: exit status $rc"
    failed="$failed $t"
  fi
done
wait "$xpid"
xpid=
if [ -n "$failed" ]; then
  echo "run_tests: failed ($n programs run):$failed"
  exit 1
fi
exit 0
