#!/bin/sh
# Runs inside the emulated ARM64 machine as root (tests/system/arm64/init),
# from /vsc: build/ is the arm64 build, tests/ and scripts/ the repository's.
# The same system tests as `make check` on x86-64, on the arm64 kernel.
# Every kernel feature they need is there, so none may skip
# (VSC_REQUIRE_ALL=1). Exit status: the number of failed scripts.
export VSC_REQUIRE_ALL=1
# Settings passed in by run.sh (VSC_ARM64_ONLY, VSC_LAB_ITERATIONS).
[ -f ./env ] && . ./env
# Emulation runs the target programs many times slower than a real core:
# the lab run uses 500 iterations per test (each still a fresh litmus test).
# So few iterations rarely show 50 weak SB outcomes, below which lab.sh does
# not compare the plain and lab.h rates (a rate is a timing matter, and
# under emulation on a loaded host it varied beyond 2x between the builds).
export VSC_LAB_ITERATIONS=${VSC_LAB_ITERATIONS:-500}
# Programs linked against the build's libvsc-lttng-ust.so carry the host's
# absolute build folder as their run path; here the build is ./build.
export LD_LIBRARY_PATH=$PWD/build
failed=""
run() {
  name=$1
  shift
  case " ${VSC_ARM64_ONLY:-$name} " in
  *" $name "*) ;;
  *) echo "== arm64 guest: $name: not selected (VSC_ARM64_ONLY)"; return ;;
  esac
  echo "== arm64 guest: $name"
  start=$(date +%s)
  "$@"
  status=$?
  echo "== arm64 guest: $name: exit status $status, $(($(date +%s) - start)) s"
  [ $status = 0 ] || failed="$failed $name"
}
b=build
run record tests/system/record.sh $b/vsc $b/targets
run watch-limits tests/system/watch_limits.sh $b/vsc $b/targets
run watch tests/system/arm64/watch.sh $b/vsc $b/targets
run lttng tests/system/arm64/lttng.sh $b
run lab tests/system/lab.sh $b/vsc
if [ -n "$failed" ]; then
  echo "== arm64 guest: failed:$failed"
  exit 1
fi
echo "== arm64 guest: all passed"
