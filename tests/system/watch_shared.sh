#!/bin/sh
# vsc record --watch with writers it cannot see (bpf/foreign.bpf.h,
# userspace/capture/shared_maps.h), run for real as root:
#   tests/system/watch_shared.sh BUILD/vsc BUILD/targets
# probe_shm watched KIND NAME S (a correct program: it stores -1 into a word
# and then only loads it) is recorded by PID with a hardware watchpoint on
# the word while another process, outside its family, stores into it:
# - with process_vm_writev into its private word, or through its
#   /proc/PID/mem;
# - through a mapping of its shm_open object, or of its System V segment,
#   made and dropped every 20 ms (no look at the maps finds it: the mmap
#   and shmat hook does);
# - with pwrite into its file, no mapping (inotify);
# - through a mapping of its shm_open object, or of a file it maps
#   read-only, that is read-only at every look and made writable by
#   mprotect for each store (the mprotect hook).
# Each must come out `unknown` (exit 3) naming the writer (pid and how),
# and with --accept-incomplete `inconsistent`: the writer really changed
# what the target read. Before the hooks were shared with --watch, the
# first three gave a plain `inconsistent` (or `unknown` for another
# reason: a process whose maps cannot be read). A target alone on private
# memory must stay plain `consistent`, and so must one that loads from a
# file it opened read-only and maps shared, which no process maps so that
# it may write it (the kernel's count), even where some process's maps
# cannot be read; with a process that may write it, `unknown`. Skips only where the kernel lacks
# hardware breakpoints or BTF or we are not root, and fails instead when
# VSC_REQUIRE_ALL=1.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
targets=$(cd "${2:?usage: watch_shared.sh VSC TARGETS_DIR}" && pwd)
shm=$targets/probe_shm
watch_test=watch_shared
. "$(dirname "$0")/watch_common.sh"
watch_require_kernel
watch_require_firing

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
  case $1 in vmwriter | memwriter) tkind=private ;; esac
  "$shm" watched "$tkind" "$3" 30 > "$work/word" &
  target=$!
  watch_wait_for "$work/word" word "$target" || return 1
  # shellcheck disable=SC2046 # "word PID ADDRESS"
  set -- "$1" "$2" "$3" $(head -1 "$work/word")
  addr=$6
  case $1 in
    vmwriter | memwriter) "$shm" "$1" "$target" "$addr" > "$work/other.out" & ;;
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

# expect_unknown WHAT REASON: the last recording is unknown for REASON (it
# names the writer where it is known) and the writer changed what the
# target read.
expect_unknown() {
  if [ "$st" = 0 ] && [ "$cst" = 3 ] && [ "$(head -1 "$work/out.txt")" = unknown ] &&
     grep -q "$2" "$work/out.txt" && [ "$accepted" = inconsistent ]; then
    ok "$1: unknown, for that reason"
  else
    bad "$1: record $st, check $cst: $(head -2 "$work/out.txt" | tr '\n' ' '); accepted: $accepted; $(tail -2 "$work/err" | tr '\n' ' ')"
  fi
}

# expect_consistent WHAT: the last recording is plain consistent.
expect_consistent() {
  if [ "$st" = 0 ] && [ "$cst" = 0 ] && [ "$(head -1 "$work/out.txt")" = consistent ]; then
    ok "$1: consistent"
  else
    bad "$1: record $st, check $cst: $(head -2 "$work/out.txt" | tr '\n' ' '); $(tail -2 "$work/err" | tr '\n' ' ')"
  fi
}

if watch_with none private -; then
  expect_consistent "alone on private memory"
else
  bad "alone: the target did not start"
fi

if watch_with vmwriter private -; then
  expect_unknown "process_vm_writev (pid $writer)" \
    "stores into its memory by system calls of other processes (process_vm_writev, ptrace pokes; the last by pid $writer)"
else
  bad "process_vm_writev: a process did not start"
fi

if watch_with memwriter private -; then
  expect_unknown "/proc/PID/mem (pid $writer)" \
    "writes into its memory through /proc/PID/mem (the last by pid $writer)"
else
  bad "/proc/PID/mem: a process did not start"
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

# Read-only at every look (made so before the recording), writable only
# for each store: the mprotect hook names it. (Before: a plain
# inconsistent, or unknown only for a process whose maps cannot be read.)
if watch_with toggler posix "$posix"; then
  expect_unknown "posix, made writable by mprotect between two looks (pid $writer)" \
    "pid $writer (probe_shm) map.* /dev/shm$posix"
else
  bad "posix toggler: a process did not start"
fi

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

# A file the target opened read-only and maps shared: no look names a
# writer, and the kernel counts no shared mapping that may write it, so a
# process whose maps cannot be read does not write it through one either
# (before: `unknown` wherever some maps cannot be read, a false alarm).
# With a process that maps it from a writable descriptor (read-only, but
# mprotect could make it writable: the kernel counts it), or that maps it
# writable between two looks, it must stay `unknown`.
unreadable=""
for m in /proc/[0-9]*/maps; do
  cat "$m" > /dev/null 2>&1 || { [ -e "$m" ] && unreadable="$unreadable ${m#/proc/}"; }
done
unreadable=$(echo "$unreadable" | sed 's|/maps||g')
[ -n "$unreadable" ] || echo "note: every process's maps can be read here: the read-only file cases show no difference"
head -c 4096 /dev/zero > "$work/rofile"
if watch_with none rofile "$work/rofile"; then
  expect_consistent "a read-only mapped file nobody may write (maps not readable:${unreadable:- none})"
else
  bad "read-only file alone: the target did not start"
fi
# Any process's mprotect that makes memory writable is looked at; one
# whose mappings are locked at that instant (a busy machine: another
# multi-threaded program, an emulator; here probe_shm contender, whose
# threads map and unmap as it mprotects) cannot be. It makes writable only
# a mapping that may write, which the kernel counts at each look, so the
# file nobody may write stays `consistent`, and -v names the process.
# Before, every object was then not known (`unknown`, 'an mprotect's
# mappings could not be looked at'), 1 run in 10 here beside a qemu-user
# run, and always beside the contender.
if watch_with contender rofile "$work/rofile"; then
  if grep -q "mprotect calls of other processes .* could not be looked at, the last by pid $writer\$" "$work/err"; then
    expect_consistent "a read-only mapped file nobody may write, beside mprotects that cannot be looked at (pid $writer)"
  else
    echo "note: no mprotect of the contender was missed: $(grep 'shared memory' "$work/err" | tr '\n' ' ')"
    expect_consistent "a read-only mapped file nobody may write, beside the contender (pid $writer)"
  fi
else
  bad "read-only file, contender: a process did not start"
fi
if [ -n "$unreadable" ]; then
  if watch_with reader file "$work/rofile"; then
    if [ "$st" = 0 ] && [ "$cst" = 3 ] && grep -q "cannot be read .*so whether it writes $work/rofile is not known" "$work/out.txt"; then
      ok "a read-only mapped file another process may write (mprotect): unknown"
    else
      bad "read-only file, a reader that may write: record $st, check $cst: $(head -2 "$work/out.txt" | tr '\n' ' ')"
    fi
  else
    bad "read-only file, reader: a process did not start"
  fi
fi
# The same, mapped read-only from a writable descriptor and made writable
# by mprotect between two looks: the mmap asks only to read, so a hook
# that looked for PROT_WRITE there missed it, the kernel's count was 0 at
# every look, and the target's loads of values nobody recorded came out a
# plain `inconsistent`.
if watch_with mflasher rofile "$work/rofile"; then
  expect_unknown "read-only mapped file, made writable by mprotect between two looks (pid $writer)" \
    "pid $writer (probe_shm) mapped $work/rofile.* writable and shared during the recording (seen at its mmap or shmat"
else
  bad "read-only file, mflasher: a process did not start"
fi
if watch_with toggler rofile "$work/rofile"; then
  expect_unknown "read-only mapped file, whose read-only mapping another process makes writable between two looks (pid $writer)" \
    "pid $writer (probe_shm) map.* $work/rofile"
else
  bad "read-only file, toggler: a process did not start"
fi
if watch_with flasher file "$work/rofile"; then
  expect_unknown "read-only mapped file, mapped writable between two looks (pid $writer)" \
    "pid $writer (probe_shm) mapped $work/rofile.* writable and shared during the recording (seen at its mmap or shmat"
else
  bad "read-only file, flasher: a process did not start"
fi

echo "watch_shared: $pass passed, $fail failed"
[ "$fail" = 0 ]
