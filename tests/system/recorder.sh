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
if [ "$(id -u)" != 0 ] || [ ! -d /sys/bus/event_source/devices/uprobe ]; then
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then echo "FAIL: recorder: needs root and uprobes"; exit 1; fi
  echo "SKIP: recorder: needs root and uprobes (eBPF)"
  exit 0
fi

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

echo "recorder: $pass passed, $fail failed"
[ "$fail" = 0 ]
