#!/bin/sh
# The system tests on an ARM64 Linux kernel, in an emulated machine
# (qemu-system-aarch64, TCG: runs on any host). docs/arm64.md.
#
#   tests/system/arm64/run.sh ARM64_BUILD CACHE_DIR
#
# ARM64_BUILD is an arm64 build folder (make ARCH=arm64 plus the test
# targets); CACHE_DIR keeps the arm64 root and kernel between runs
# (tests/system/arm64/root.sh). The machine boots that kernel with the root
# as its initramfs plus a second archive holding the build and the test
# scripts, runs tests/system/arm64/guest.sh as root and powers off; its
# serial console is shown and kept in ARM64_BUILD/system-test.log, whose
# status line decides this script's exit status.
#
# Environment: VSC_ARM64_TIMEOUT (seconds for the whole boot and run,
# default 1500), VSC_ARM64_ONLY (names of guest.sh's tests to run, for
# debugging), VSC_REQUIRE_ALL=1 (fail instead of skipping when this host
# cannot run the machine).
set -u
build=$(cd "${1:?usage: run.sh ARM64_BUILD CACHE_DIR}" && pwd)
cache=${2:?usage: run.sh ARM64_BUILD CACHE_DIR}
top=$(cd "$(dirname "$0")/../../.." && pwd)
timeout_s=${VSC_ARM64_TIMEOUT:-1500}
qemu=${VSC_ARM64_QEMU:-qemu-system-aarch64}

skip() {
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
    echo "check-arm64-system: FAIL: cannot run: $1 (VSC_REQUIRE_ALL=1)"
    exit 1
  fi
  echo "check-arm64-system: skipped: $1"
  exit 0
}
for tool in "$qemu" mmdebstrap cpio; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (scripts/deps.sh)"
done
file "$build/vsc" | grep -q 'ARM aarch64' || { echo "check-arm64-system: $build/vsc is not an AArch64 program"; exit 1; }

root=$("$top/tests/system/arm64/root.sh" "$cache") || { echo "check-arm64-system: FAIL: no arm64 root"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vsc-arm64-system.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The second archive: /vsc with the build, the test scripts, the targets'
# sources the scripts read, and the guest's settings.
stage=$work/stage/vsc
mkdir -p "$stage/build" "$stage/tests" "$stage/scripts"
cp -a "$build/vsc" "$build"/libvsc*.so* "$build/targets" "$stage/build/"
[ -d "$build/babeltrace2" ] && cp -a "$build/babeltrace2" "$stage/build/"
cp -a "$top/tests/system" "$top/tests/targets" "$stage/tests/"
cp -a "$top/scripts/vsc-lttng" "$stage/scripts/"
cp -a "$top/include" "$stage/"
cp "${VSC_ARM64_GUEST:-$top/tests/system/arm64/guest.sh}" "$stage/guest.sh"
{
  [ -n "${VSC_ARM64_ONLY:-}" ] && echo "VSC_ARM64_ONLY='$VSC_ARM64_ONLY'"
  [ -n "${VSC_LAB_ITERATIONS:-}" ] && echo "VSC_LAB_ITERATIONS='$VSC_LAB_ITERATIONS'"
} > "$stage/env"
(cd "$work/stage" && find vsc | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) > "$work/tests.cpio"
cat "$root/root.cpio" "$work/tests.cpio" > "$work/initrd"

log=$build/system-test.log
echo "check-arm64-system: booting $(cat "$root/kernel") under $qemu (TCG, 2 CPUs), console in $log"
start=$(date +%s)
# -cpu max: ARMv8.x with LSE atomics and the debug watchpoints; pointer
# authentication is emulated with qemu's cheap hash (pauth-impdef), which
# saves a good part of the run time and changes nothing the tests see.
timeout -k 10 "$timeout_s" "$qemu" -M virt -cpu max,pauth-impdef=on -smp 2 -m 2G \
  -display none -monitor none -serial stdio -nic none -no-reboot \
  -kernel "$root/vmlinuz" -initrd "$work/initrd" \
  -append "console=ttyAMA0 rdinit=/init panic=-1 quiet loglevel=${VSC_ARM64_LOGLEVEL:-3}" \
  </dev/null 2>&1 | sed -u 's/\r$//' | tee "$log"
elapsed=$(($(date +%s) - start))
status=$(sed -n 's/^vsc-arm64: exit status \([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -z "$status" ]; then
  echo "check-arm64-system: FAIL: the machine stopped without a test status after $elapsed s" \
    "(timeout ${timeout_s} s, kernel panic or crash: see $log)"
  exit 1
fi
if [ "$status" != 0 ]; then
  echo "check-arm64-system: FAIL: the tests inside failed (status $status) after $elapsed s; console: $log"
  exit 1
fi
echo "check-arm64-system: passed in $elapsed s"
