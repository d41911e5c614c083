#!/bin/sh
# vsc record --watch with writers it cannot see (bpf/foreign.bpf.h,
# userspace/capture/shared_maps.h), run for real as root:
#   tests/system/watch_shared.sh BUILD/vsc BUILD/targets
# probe_shm watched KIND NAME S (a correct program: it stores -1 into a word
# and then only loads it) is recorded by PID with a hardware watchpoint on
# the word while another process, outside its family, stores into it:
# - with process_vm_writev into its private word;
# - through a mapping of its shm_open object, or of its System V segment,
#   made and dropped every 20 ms (no look at the maps finds it: the mmap
#   and shmat hook does);
# - with pwrite into its file, no mapping (inotify).
# Each must come out `unknown` (exit 3) naming the writer (pid and how),
# and with --accept-incomplete `inconsistent`: the writer really changed
# what the target read. Before the hooks were shared with --watch, the
# first three gave a plain `inconsistent` (or `unknown` for another
# reason: a process whose maps cannot be read). A target alone on private
# memory must stay plain `consistent`. Skips only where the kernel lacks
# hardware breakpoints or BTF or we are not root, and fails instead when
# VSC_REQUIRE_ALL=1.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
targets=$(cd "${2:?usage: watch_shared.sh VSC TARGETS_DIR}" && pwd)
shm=$targets/probe_shm
watch_test=watch_shared
. "$(dirname "$0")/watch_common.sh"
watch_require_kernel

work=$(mktemp -d /tmp/vsc-watch-shared.XXXXXX)
key=$((0x76740000 + $$ % 65536)) # the System V segment's key
posix=/vsc-watch-shared-$$
pass=0 fail=0
target="" other=""
cleanup() {
  for p in $target $other; do kill "$p" 2> /dev/null; done
  rm -rf "$work" "/dev/shm$posix"
  ipcrm -M "$key" 2> /dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# watch_with ROLE KIND NAME: start the target (KIND NAME), then the other
# process (ROLE: vmwriter, flasher, pwriter, none), record the target by
# PID for 1.5 s with -v, stop both. Sets $st, $cst, $accepted, $writer;
# the trace in $work/out.vsc, the check in $work/out.txt, stderr in
# $work/err. Returns 1 when something did not start.
watch_with() {
  rm -f "$work/word" "$work/other.out"
  tkind=$2
  [ "$1" = vmwriter ] && tkind=private
  "$shm" watched "$tkind" "$3" 30 > "$work/word" &
  target=$!
  watch_wait_for "$work/word" word "$target" || return 1
  # shellcheck disable=SC2046 # "word PID ADDRESS"
  set -- "$1" "$2" "$3" $(head -1 "$work/word")
  addr=$6
  case $1 in
    vmwriter) "$shm" vmwriter "$target" "$addr" > "$work/other.out" & ;;
    none) sleep 30 > "$work/other.out" & ;;
    *) "$shm" "$1" "$2" "$3" > "$work/other.out" & ;;
  esac
  other=$!
  [ "$1" = none ] || watch_wait_for "$work/other.out" ready "$other" || return 1
  "$vsc" record -v --watch "$addr:8" -p "$target" --duration 1.5 -o "$work/out.vsc" \
    2> "$work/err"
  st=$?
  writer=$other
  kill "$target" "$other" 2> /dev/null
  wait "$target" "$other" 2> /dev/null
  target="" other=""
  "$vsc" check "$work/out.vsc" > "$work/out.txt" 2>&1
  cst=$?
  accepted=$("$vsc" check --accept-incomplete "$work/out.vsc" 2> /dev/null | head -1)
}

# expect_unknown WHAT REASON: the last recording is unknown for REASON and
# the writer changed what the target read.
expect_unknown() {
  if [ "$st" = 0 ] && [ "$cst" = 3 ] && [ "$(head -1 "$work/out.txt")" = unknown ] &&
     grep -q "$2" "$work/out.txt" && [ "$accepted" = inconsistent ]; then
    ok "$1: unknown, naming the writer"
  else
    bad "$1: record $st, check $cst: $(head -2 "$work/out.txt" | tr '\n' ' '); accepted: $accepted; $(tail -2 "$work/err" | tr '\n' ' ')"
  fi
}

if watch_with none private -; then
  if [ "$st" = 0 ] && [ "$cst" = 0 ] && [ "$(head -1 "$work/out.txt")" = consistent ]; then
    ok "alone on private memory: consistent"
  else
    bad "alone: record $st, check $cst: $(head -2 "$work/out.txt" | tr '\n' ' '); $(tail -2 "$work/err" | tr '\n' ' ')"
  fi
else
  bad "alone: the target did not start"
fi

if watch_with vmwriter private -; then
  expect_unknown "process_vm_writev (pid $writer)" \
    "stores into its memory by system calls of other processes (process_vm_writev, ptrace pokes; the last by pid $writer)"
else
  bad "process_vm_writev: a process did not start"
fi

for kind in posix sysv; do
  case $kind in
    posix) name=$posix path="/dev/shm$posix" ;;
    sysv) name=$key path="/SYSV$(printf %08x "$key")" ;;
  esac
  if watch_with flasher $kind "$name"; then
    expect_unknown "$kind mapped only between two looks (pid $writer)" \
      "pid $writer (probe_shm) mapped $path.* writable and shared during the recording (seen at its mmap or shmat"
  else
    bad "$kind flasher: a process did not start"
  fi
done

# pwrite, no mapping: inotify; where some maps cannot be read that may be
# the reason given first, and -v says the write was seen all the same.
if watch_with pwriter file "$work/object"; then
  expect_unknown "pwrite into its file (pid $writer)" "$work/object"
  if grep -q ' 1 written by system calls' "$work/err"; then
    ok "pwrite: seen by inotify"
  else
    bad "pwrite: not seen by inotify: $(grep 'shared memory' "$work/err")"
  fi
else
  bad "pwrite: a process did not start"
fi

echo "watch_shared: $pass passed, $fail failed"
[ "$fail" = 0 ]
