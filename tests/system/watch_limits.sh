#!/bin/sh
# vsc record --watch refuses clearly (exit 2, a message that says why) what
# the hardware or the kernel cannot do, and leaves no target behind.
set -u
vsc=${1:?usage: watch_limits.sh PATH-TO-VSC TARGET-DIR}
targets=${2:?usage: watch_limits.sh PATH-TO-VSC TARGET-DIR}
watch_test=watch_limits
. "$(dirname "$0")/watch_common.sh"
watch_require_kernel

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
bin=$targets/watch_plain

# refuse WHAT EXPECTED-MESSAGE-PART ARGS...: exit 2 and the message
refuse() {
  what=$1 msg=$2
  shift 2
  "$vsc" record "$@" -o "$tmp/out.vsc" > "$tmp/out" 2> "$tmp/err"
  st=$?
  if [ "$st" != 2 ]; then
    echo "FAIL: watch_limits $what: status $st, expected 2 ($(tail -1 "$tmp/err"))"
    fail=$((fail + 1))
  elif ! grep -q -- "$msg" "$tmp/err"; then
    echo "FAIL: watch_limits $what: message lacks '$msg': $(cat "$tmp/err")"
    fail=$((fail + 1))
  elif [ -e "$tmp/out.vsc" ]; then
    echo "FAIL: watch_limits $what: wrote a trace although it refused"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

refuse "five watchpoints" "4 hardware watchpoints" \
  --watch flag --watch data --watch small --watch tiny --watch history:8 -- "$bin"
refuse "length 3" "1, 2, 4 or 8" --watch data:3 -- "$bin"
refuse "length 16" "1, 2, 4 or 8" --watch history:16 -- "$bin"
refuse "a 32-byte symbol" "is 32 bytes" --watch history -- "$bin"
refuse "unaligned" "not aligned" --watch data:8 --watch 0x1002:4 -- "$bin"
refuse "overlap" "overlaps" --watch history:8 --watch history:4 -- "$bin"
refuse "unknown symbol" "no global object 'nosuch'" --watch nosuch -- "$bin"
refuse "bad size" "bad size" --watch data:x -- "$bin"
refuse "bad --watch-by" "bad --watch-by 'nothing'" --watch data --watch-by nothing -- "$bin"
# By pages the limits are the breakpoints' (docs/watch.md). The page
# source is x86-64 only: elsewhere --watch-by pages is refused with why.
if [ "$(uname -m)" = x86_64 ]; then
  refuse "five watchpoints, by pages" "4 hardware watchpoints" --watch-by pages \
    --watch flag --watch data --watch small --watch tiny --watch history:8 -- "$bin"
  refuse "length 3, by pages" "1, 2, 4 or 8" --watch-by pages --watch data:3 -- "$bin"
else
  refuse "by pages off x86-64" "--watch-by pages: only on x86-64" \
    --watch-by pages --watch data -- "$bin"
fi
refuse "no such pid" "no such process" --watch data -p 999999999
refuse "no such command" "cannot run" --watch data -- /nonexistent/program

# A process the caller may not trace: an unprivileged user against root's.
if command -v setpriv > /dev/null 2>&1; then
  sleep 30 &
  spid=$!
  setpriv --reuid=65534 --regid=65534 --clear-groups "$vsc" record --watch 0x1000:8 \
    -p "$spid" -o /dev/null > "$tmp/out" 2> "$tmp/err"
  st=$?
  kill "$spid" 2>/dev/null
  wait "$spid" 2>/dev/null
  if [ "$st" = 2 ] && grep -qi "ptrace\|not permitted\|permission" "$tmp/err"; then
    pass=$((pass + 1))
  else
    echo "FAIL: watch_limits unprivileged: status $st, expected 2 ($(cat "$tmp/err"))"
    fail=$((fail + 1))
  fi
fi

# No refused launch leaves a stopped or running target behind.
if pgrep -f "^$bin\$" > /dev/null 2>&1; then
  echo "FAIL: watch_limits: a refused target is still around"
  fail=$((fail + 1))
fi
echo "watch_limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
