#!/bin/sh
# System tests of the recorder's output handling (userspace/capture/
# recorder.c, trace_text.c), run for real as root with the probe target:
#   tests/system/recorder.sh BUILD/vsc BUILD/targets
# -o is checked before the command starts; a refused recording leaves an
# existing file as it was; write errors (a full device, a closed pipe) give
# exit status 1 and a message, never a trace that looks complete; a trace
# piped out carries its counts in the trailer.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
targets=$(cd "${2:?usage: recorder.sh VSC TARGETS_DIR}" && pwd)
work=$(mktemp -d /tmp/vsc-recorder-test.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: recorder: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: recorder: $1"; }
. "$(dirname "$0")/probe_env.sh"
require_probes recorder

# -o that cannot be created: refused before the command runs
"$vsc" record -o "$work/no/such/dir/t.vsc" -- sh -c "touch '$work/ran'" 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ ! -e "$work/ran" ] && grep -q "cannot write" "$work/err"; then
  ok "unwritable -o: refused (2) before the command ran"
else
  bad "unwritable -o: status $st, ran: $([ -e "$work/ran" ] && echo yes || echo no), $(cat "$work/err")"
fi

# refused later (a program without probes): an existing file stays as it was
echo "keep me" > "$work/old.vsc"
"$vsc" record -o "$work/old.vsc" -- /bin/true 2> "$work/err"
st=$?
if [ "$st" = 2 ] && [ "$(cat "$work/old.vsc")" = "keep me" ]; then
  ok "refused recording: an existing -o file is left alone"
else
  bad "refused recording: status $st, file now: $(head -c 80 "$work/old.vsc")"
fi
"$vsc" record -o "$work/new.vsc" -- /bin/true 2> /dev/null
[ ! -e "$work/new.vsc" ] && ok "refused recording: no new -o file" || bad "refused recording left $work/new.vsc"

# a full device: exit status 1 and the error
"$vsc" record -o /dev/full -- "$targets/probe_mp" - 500 > /dev/null 2> "$work/err"
st=$?
if [ "$st" = 1 ] && grep -q "No space left" "$work/err"; then
  ok "/dev/full: status 1, 'No space left on device'"
else
  bad "/dev/full: status $st: $(cat "$work/err")"
fi

# a reader that stops early: EPIPE reported, status 1 (SIGPIPE does not kill it)
{ "$vsc" record -o - -- "$targets/probe_mp" - 20000 2> "$work/err"; echo $? > "$work/st"; } | head -c 100 > /dev/null
st=$(cat "$work/st")
if [ "$st" = 1 ] && grep -q "Broken pipe" "$work/err"; then
  ok "closed pipe: status 1, 'Broken pipe'"
else
  bad "closed pipe: status $st: $(cat "$work/err")"
fi

# a pipe: counts in the trailer, the header says where they are
"$vsc" record -o - -- "$targets/probe_mp" - 500 2> /dev/null | cat > "$work/piped.vsc"
if grep -qx '# events: see end of trace' "$work/piped.vsc" &&
   [ "$(tail -n 1 "$work/piped.vsc")" = "# end of trace: events=2000 lost=0 uncertain=0" ]; then
  ok "pipe: 'see end of trace' in the header, counts in the trailer"
else
  bad "pipe: header/trailer: $(grep '^# events' "$work/piped.vsc"), $(tail -n 1 "$work/piped.vsc")"
fi

# standard output sent to a file: the header can carry the counts
"$vsc" record -o - -- "$targets/probe_mp" - 500 2> /dev/null > "$work/redirected.vsc"
if grep -qx '# events: 2000' "$work/redirected.vsc" &&
   [ "$(tail -n 1 "$work/redirected.vsc")" = "# end of trace: events=2000 lost=0 uncertain=0" ]; then
  ok "stdout to a file: counts in the header and the trailer"
else
  bad "stdout to a file: $(grep '^# events' "$work/redirected.vsc")"
fi

# -o -: the command's own standard output goes to stderr, not into the
# trace; the count on stderr is the header's
"$vsc" record -o - -- "$targets/probe_mp" - 500 --chatty 2> "$work/err" > "$work/chatty.vsc"
out=$("$vsc" check "$work/chatty.vsc" 2>&1 | head -1)
if [ "$out" = consistent ] && ! grep -q "chatty line" "$work/chatty.vsc" &&
   [ "$(grep -c 'chatty line' "$work/err")" = 3 ]; then
  ok "-o -: the command's stdout went to stderr, the trace is whole ($out)"
else
  bad "-o -: check said '$out'; chatty lines in the trace: $(grep -c "chatty line" "$work/chatty.vsc")"
fi
n=$(sed -n 's/^# events: //p' "$work/chatty.vsc")
grep -q "^vsc record: $n events written to stdout, 0 lost" "$work/err" &&
  ok "the events count on stderr ($n) is the header's" ||
  bad "stderr count vs header $n: $(grep 'events written' "$work/err")"
out=$("$vsc" record -o - -- "$targets/probe_mp" - 500 --chatty 2> /dev/null | "$vsc" check - 2>&1 | head -1)
[ "$out" = consistent ] && ok "record -o - -- CMD (printing) | check -: consistent" ||
  bad "record -o - -- CMD (printing) | check - said '$out'"

# the launched command ignores the signals we ignore, no more (the
# recorder ignores SIGPIPE itself, after the command is started)
want=$(sh -c 'grep "^SigIgn:" /proc/self/status')
got=$("$vsc" record -o "$work/sig.vsc" -- "$targets/probe_mp" - 10 --sigign 2> "$work/err")
[ "$got" = "$want" ] && ok "the command's ignored signals are ours ($got)" ||
  bad "the command's ignored signals: '$got', want '$want'"

# --duration on -- CMD: without --stop-command the command runs on (and the
# recorder says so); with it, the command gets the signal and its end is
# in the header
"$vsc" record -o "$work/runs-on.vsc" --duration 0.5 -- "$targets/probe_mp" - 0 2> "$work/err"
pid=$(sed -n 's/^# what: command (pid \([0-9]*\)).*/\1/p' "$work/runs-on.vsc")
if [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null && grep -q "the command (pid $pid) runs on" "$work/err" &&
   grep -qx '# command ended: still running' "$work/runs-on.vsc"; then
  ok "--duration on -- CMD: the command runs on, and stderr says so"
else
  bad "--duration on -- CMD: pid '$pid', stderr: $(cat "$work/err")"
fi
[ -n "$pid" ] && kill -TERM "$pid" 2> /dev/null
"$vsc" record -o "$work/stopped.vsc" --duration 0.5 --stop-command TERM -- "$targets/probe_mp" - 0 \
  2> "$work/err"
st=$?
pid=$(sed -n 's/^# what: command (pid \([0-9]*\)).*/\1/p' "$work/stopped.vsc")
if [ $st = 0 ] && [ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null &&
   grep -qx '# command ended: exit status 0' "$work/stopped.vsc" &&
   [ "$("$vsc" check "$work/stopped.vsc" 2>&1 | head -1)" = consistent ]; then
  ok "--stop-command TERM: the command ended (exit status 0 in the header), trace consistent"
else
  bad "--stop-command TERM: status $st, pid '$pid', $(grep '^# command ended' "$work/stopped.vsc"), $(cat "$work/err")"
fi
"$vsc" record -o "$work/x.vsc" --stop-command BOGUS -- "$targets/probe_mp" - 1 2> "$work/err"
[ $? = 2 ] && grep -q "bad --stop-command 'BOGUS'" "$work/err" && ok "--stop-command BOGUS: refused" ||
  bad "--stop-command BOGUS: $(cat "$work/err")"

echo "recorder: $pass passed, $fail failed"
[ "$fail" = 0 ]
