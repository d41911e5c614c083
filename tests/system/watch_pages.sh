#!/bin/sh
# vsc record --watch by pages (docs/watch.md, "Where breakpoints do not
# fire: pages"), what only pages have to get right, run for real as root:
#   tests/system/watch_pages.sh BUILD/vsc BUILD/targets
# The watched page is protected (PROT_NONE) while the program runs. A
# system call of the program that changes, replaces or drops it (mremap
# MREMAP_FIXED onto it, mmap MAP_FIXED, madvise MADV_DONTNEED, shmat
# SHM_REMAP, brk shrinking over it), or that gives the kernel an address
# on it to write later, outside any system call (clone's
# CLONE_CHILD_CLEARTID / CLONE_CHILD_SETTID / CLONE_PARENT_SETTID words,
# set_tid_address, set_robust_list, rseq, sigaltstack, a signal's frame
# on it), or a fault on it while the thread blocks or ignores SIGSEGV
# with an action of its own (the kernel resets the action), or a call run
# again on the unprotected page that had consumed what it failed to copy
# (an eventfd's count, a datagram: run again, it gets EAGAIN), must not
# leave a trace that looks whole: each recording of watch_pagecalls MODE must say why its loss is
# not known exactly (naming the call) and `vsc check` must give no plain
# verdict (unknown, exit 3). Before, the new address of an mremap, shmat
# SHM_REMAP, brk, every kernel write and the reset action went
# uncounted: `# lost events: 0` and `consistent`, the accesses after the
# call missing (mremap), or the program changed (its thread's exit did
# not clear the word a join waits on).
# Signals that stop a thread while the recorder runs a call of its own in
# it (an mprotect) are sent to it again: each must come with its own
# siginfo (watch_pagecalls signals: SI_TIMER and its value, SI_TKILL and
# SI_USER from the program), where before those sent again came as
# SI_TKILL from the recorder (a third to a half of them here), and the
# program must end well, its 2,000 stores recorded, 0 lost, consistent.
# x86-64 only (elsewhere --watch-by pages is refused: watch_limits.sh).
# Skips only where the kernel lacks hardware breakpoints or BTF or we are
# not root, and fails instead when VSC_REQUIRE_ALL=1.
set -u
vsc=${1:?usage: watch_pages.sh PATH-TO-VSC TARGET-DIR}
targets=${2:?usage: watch_pages.sh PATH-TO-VSC TARGET-DIR}
watch_test=watch_pages
. "$(dirname "$0")/watch_common.sh"
if [ "$(uname -m)" != x86_64 ]; then
  echo "watch pages: --watch-by pages is x86-64 only (its refusal elsewhere: watch_limits.sh)"
  exit 0
fi
watch_require_kernel

tmp=$(mktemp -d)
tpid="" rpid=""
cleanup() {
  for p in $tpid $rpid; do kill "$p" 2> /dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
pass=0 fail=0
bin=$targets/watch_pagecalls

# verdict LABEL WHY-PATTERN: the trace in $tmp/out.vsc, the recorder's
# status in $st; the loss is not known exactly for WHY-PATTERN, and vsc
# check says unknown.
verdict() {
  "$vsc" check "$tmp/out.vsc" > "$tmp/verdict" 2>&1
  cst=$?
  stored=$(grep -c '^[0-9.]* w wv ' "$tmp/out.vsc")
  if [ "$st" = 0 ] && grep -q '^# lost events: at least ' "$tmp/out.vsc" &&
    grep -q "^# loss not known exactly: .*$2" "$tmp/out.vsc" &&
    [ "$cst" = 3 ] && [ "$(head -1 "$tmp/verdict")" = unknown ] && [ "$stored" -ge 5 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: watch pages $1: status $st, $stored stores of wv recorded,\
 $(grep '^# lost events' "$tmp/out.vsc"), loss: $(sed -n 's/^# loss not known exactly: //p' "$tmp/out.vsc" | cut -c1-160),\
 vsc check status $cst: $(head -1 "$tmp/verdict") (wanted a loss for: $2)"
  fi
}

changed='changed, replaced or dropped a watched page (the last:'
kernel='gave the kernel an address on a watched page to write outside system calls'
segv='by a thread that blocked or ignored SIGSEGV with an action of its own'
consumed='system calls run again may have consumed what they could not copy'

# by command: mode, what the loss must say
for c in "mremap:$changed mremap," "mmap:$changed mmap MAP_FIXED," \
  "madvise:$changed madvise," "shmat:$changed shmat SHM_REMAP," \
  "cleartid:$kernel" "settid:$kernel (the last: clone," "tidaddr:$kernel" \
  "robust:$kernel" "rseq:$kernel" "altstack:$kernel (the last: sigaltstack," \
  "altsignal:$kernel (the last: a signal's frame," \
  "segvaction:$segv" "eventfd:$consumed" "dgram:$consumed"; do
  mode=${c%%:*}
  rm -f "$tmp/out.vsc"
  "$vsc" record --watch-by pages --watch wv:8 -o "$tmp/out.vsc" -- "$bin" "$mode" \
    > "$tmp/res" 2> "$tmp/err"
  st=$?
  verdict "$mode" "${c#*:}"
done

# brk: the variable on the heap (an address the program says), by PID
rm -f "$tmp/go" "$tmp/ready" "$tmp/out.vsc"
WATCH_GO=$tmp/go "$bin" brk > "$tmp/ready" &
tpid=$!
st=""
if watch_wait_for "$tmp/ready" ready "$tpid"; then
  addr=$(sed -n 's/^addr //p' "$tmp/ready")
  "$vsc" record --watch-by pages --watch "$addr:8" -p "$tpid" -o "$tmp/out.vsc" 2> "$tmp/err" &
  rpid=$!
  if watch_wait_for "$tmp/err" watching "$rpid"; then
    touch "$tmp/go"
    wait "$tpid"
    wait "$rpid"
    st=$?
  fi
fi
if [ -z "$st" ]; then
  fail=$((fail + 1))
  echo "FAIL: watch pages brk: the program or the recorder did not start: $(tail -1 "$tmp/err")"
else
  # by PID the variable is named by its address
  sed -i "s/ $addr / wv /" "$tmp/out.vsc"
  verdict brk "$changed brk,"
fi
tpid="" rpid=""

# whole MODE SAYS STORES: a recording of watch_pagecalls MODE by command
# must be whole: the program ends with status 0 having said a line that
# matches SAYS, its STORES stores of wv recorded, 0 lost, consistent.
whole() {
  rm -f "$tmp/out.vsc"
  "$vsc" record --watch-by pages --watch wv:8 -o "$tmp/out.vsc" -- "$bin" "$1" \
    > "$tmp/res" 2> "$tmp/err"
  st=$?
  stored=$(grep -c '^[0-9]* w wv ' "$tmp/out.vsc")
  "$vsc" check "$tmp/out.vsc" > "$tmp/verdict" 2>&1
  if [ "$st" = 0 ] && grep -qx "$2" "$tmp/res" && [ "$stored" = "$3" ] &&
    grep -qx '# command ended: exit status 0' "$tmp/out.vsc" &&
    grep -qx '# lost events: 0' "$tmp/out.vsc" &&
    [ "$(head -1 "$tmp/verdict")" = consistent ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: watch pages $1: status $st, the program said: $(head -1 "$tmp/res") (wanted: $2),\
 $stored stores recorded of $3, $(grep '^# lost events' "$tmp/out.vsc"),\
 $(grep '^# command ended' "$tmp/out.vsc"), vsc check: $(head -1 "$tmp/verdict")"
  fi
}

# A thread that blocks SIGSEGV: its store to the page (whose fault makes
# the kernel unblock SIGSEGV) leaves it blocked (blocked again), its read
# into the page is run again as any other (the hook stops it with
# SIGSTOP, which cannot be blocked) and reads its byte, and the program
# lives on when it unblocks SIGSEGV. Before, the store unblocked SIGSEGV
# for good, the read failed with EFAULT, and the hook's SIGSEGV killed
# the program. With an action of its own (segvaction, above), the kernel
# resets it: counted.
whole blocked 'read 1, SIGSEGV blocked still: yes' 11

# Signals sent again keep their siginfo: none wrong, of at least 100.
whole signals 'signals [1-9][0-9][0-9][0-9]* wrong 0' 2000

echo "watch pages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
