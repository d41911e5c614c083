#!/bin/sh
# Runs inside the emulated ARM64 machine as root (tests/system/arm64/init),
# from /vsc: build/ is the arm64 build, tests/ and scripts/ the repository's.
# The same system tests as `make check` on x86-64, on the arm64 kernel.
# Every kernel feature they need is there, so none may skip
# (VSC_REQUIRE_ALL=1). Exit status: the number of failed scripts.
export VSC_REQUIRE_ALL=1
# Settings passed in by run.sh (VSC_ARM64_ONLY, VSC_LAB_ITERATIONS).
[ -f ./env ] && . ./env
# Emulation runs the target programs ~20 times slower than a real core: the
# lab run uses fewer iterations (each still a fresh store-buffering test).
export VSC_LAB_ITERATIONS=${VSC_LAB_ITERATIONS:-2000}
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
