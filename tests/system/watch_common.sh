# Shared by the watch system tests (sourced). Skips only when the kernel or
# the machine truly lacks what hardware watchpoints need, saying why, and
# fails instead when VSC_REQUIRE_ALL=1.

watch_need() {
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: $watch_test: $1 (VSC_REQUIRE_ALL=1 forbids skipping)"
    exit 1
  fi
  echo "SKIP: $watch_test: $1"
  exit 0
}

watch_require_kernel() {
  [ "$(id -u)" = 0 ] || watch_need "not root (perf breakpoints on other processes and BPF need it)"
  [ -d /sys/bus/event_source/devices/breakpoint ] ||
    watch_need "this kernel has no hardware breakpoint PMU (CONFIG_HAVE_HW_BREAKPOINT)"
  [ -e /sys/kernel/btf/vmlinux ] || watch_need "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
}

# Event lines of a trace or of a target's own log, without timestamps and
# comments, grouped per thread (stable: program order is kept).
watch_events() {
  grep -E '^[0-9]+ [rwu] ' "$1" | sed -e 's/ @[0-9]*//' -e 's/ #.*//' | sort -s -n -k1,1
}

# Wait (bounded) until file $1 contains $2, or process $3 is gone.
watch_wait_for() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    kill -0 "$3" 2>/dev/null || return 1
    i=$((i + 1))
    [ "$i" -lt 3000 ] || return 1
    sleep 0.01
  done
}
