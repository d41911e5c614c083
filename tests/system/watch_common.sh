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

# Hardware watchpoints that never fire (a virtual machine that does not
# pass the debug registers through: the kernel takes every breakpoint)
# must not give a trace without its accesses: there `vsc record --watch`
# records by pages (docs/watch.md, "Where breakpoints do not fire:
# pages") on x86-64, and refuses, saying so, elsewhere (the suite skips,
# or fails under VSC_REQUIRE_ALL=1). The recording of watch_plain must
# hold its accesses either way. Before, such a machine gave a whole trace
# without a single access ('# lost events: 0', vsc check: consistent, on
# nothing). Sets watch_by: breakpoints or pages (the trace's header).
watch_require_firing() {
  fires_dir=$(mktemp -d /tmp/vsc-watch-fires.XXXXXX)
  "$vsc" record --watch flag -o "$fires_dir/t.vsc" -- "$targets/watch_plain" \
    > /dev/null 2> "$fires_dir/err"
  fires_st=$?
  fires_n=$(sed -n 's/^# events: //p' "$fires_dir/t.vsc" 2> /dev/null)
  fires_refused=$(grep -c 'hardware watchpoints do not fire' "$fires_dir/err")
  watch_by=$(sed -n 's/^# watch by: \([a-z]*\).*/\1/p' "$fires_dir/t.vsc" 2> /dev/null)
  rm -rf "$fires_dir"
  if [ $fires_st = 2 ] && [ "$fires_refused" != 0 ]; then
    watch_need "hardware watchpoints do not fire on this machine, and pages are x86-64 only (vsc record --watch refuses)"
  fi
  if [ $fires_st != 0 ] || [ "${fires_n:-0}" = 0 ] || [ -z "$watch_by" ]; then
    echo "FAIL: $watch_test: vsc record --watch flag of watch_plain: exit $fires_st, ${fires_n:-no} events, watch by '${watch_by:-?}'"
    exit 1
  fi
  [ "$watch_by" = pages ] &&
    echo "$watch_test: hardware watchpoints do not fire here: every case runs by pages (page protection and single steps)"
  return 0
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

# Record a program by PID: start "$@" with WATCH_GO=$tmp/go, so that it
# says "ready" (into file $1) and waits; attach `$vsc record $watch_args
# -p PID -o $tmp/out.vsc` (stderr in $tmp/err); let the program go; wait
# for both. Sets why when that fails, else st and tst (the recorder's and
# the program's exit statuses).
watch_by_pid() {
  ready=$1
  shift
  rm -f "$tmp/go" "$ready" "$tmp/err"
  WATCH_GO=$tmp/go "$@" > "$ready" &
  tpid=$!
  if ! watch_wait_for "$ready" ready "$tpid"; then
    why="the program did not start"
    kill "$tpid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    return
  fi
  # shellcheck disable=SC2086 # watch_args: words
  "$vsc" record $watch_args -p "$tpid" -o "$tmp/out.vsc" 2> "$tmp/err" &
  rpid=$!
  if ! watch_wait_for "$tmp/err" watching "$rpid"; then
    why="recorder did not attach: $(tail -1 "$tmp/err")"
    kill "$tpid" "$rpid" 2>/dev/null
    touch "$tmp/go"
    wait "$tpid" "$rpid" 2>/dev/null
    return
  fi
  touch "$tmp/go"
  wait "$tpid"
  tst=$?
  wait "$rpid"
  st=$?
}
