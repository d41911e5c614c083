#!/bin/sh
# System tests of `vsc record` (eBPF USDT probes), run for real as root.
#   tests/system/record.sh BUILD/vsc BUILD/targets
# Each bundled target notes every probed access it makes; the recorded
# per-thread sequences must equal those notes exactly (count, order,
# variables, values). Skips only when this kernel or user cannot do it at
# all, and fails instead when VSC_REQUIRE_ALL=1.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
targets=$(cd "${2:?usage: record.sh VSC TARGETS_DIR}" && pwd)
work=$(mktemp -d /tmp/vsc-record-test.XXXXXX)
chmod 755 "$work"
pass=0 fail=0
pids=""
cleanup() {
  for p in $pids; do kill -TERM "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

. "$(dirname "$0")/probe_env.sh"
require_probes "record tests"

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# The event lines of a trace (or of a target's notes), per thread in
# program order: thread order is by thread id, stable within a thread.
events_of() {
  grep -v -e '^#' -e '^vsc ' -e '^init ' -e '^segment ' "$1" |
    sed -e 's/ *#.*$//' -e 's/ @[0-9]*$//' | sort -s -n -k1,1
}
header() { sed -n "s/^# $2: //p" "$1"; }

# Wait until FILE holds PATTERN (the recorder says it is recording).
wait_for() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 300 ] && return 1
    sleep 0.1
  done
}

# ---- 1. by command: exact sequences, header, mode 0600, verdicts -----------
# (small runs: vsc check decides each of these traces below)
for t in mp spinlock queue sb mp_nopie; do
  trace=$work/$t.vsc notes=$work/$t.notes
  n=500; [ $t = queue ] && n=100
  "$vsc" record -o "$trace" -- "$targets/probe_$t" "$notes" $n 2> "$work/$t.err"
  status=$?
  if [ $status -ne 0 ]; then bad "$t: record exit $status: $(cat "$work/$t.err")"; continue; fi
  events_of "$trace" > "$work/$t.got"
  sort -s -n -k1,1 "$notes" > "$work/$t.want"
  if cmp -s "$work/$t.got" "$work/$t.want"; then
    ok "$t: $(wc -l < "$work/$t.want") events, per-thread sequences exact"
  else
    bad "$t: recorded sequences differ from what the target did"
    diff "$work/$t.want" "$work/$t.got" | head -5
  fi
  [ "$(header "$trace" 'lost events')" = 0 ] && ok "$t: 0 lost" || bad "$t: lost $(header "$trace" 'lost events')"
  [ "$(header "$trace" events)" = "$(wc -l < "$work/$t.want")" ] && ok "$t: header counts events" ||
    bad "$t: header events $(header "$trace" events)"
  for key in what how when kernel arch 'command ended'; do
    [ -n "$(header "$trace" "$key")" ] || bad "$t: header has no '# $key:'"
  done
  [ "$(stat -c %a "$trace")" = 600 ] && ok "$t: written 0600" || bad "$t: mode $(stat -c %a "$trace")"
  grep -q "^# command ended: exit status 0" "$trace" || bad "$t: exit status not reported"
done

# Launched commands get their globals' initial values from the ELF file.
grep -q '^init data 0$' "$work/mp.vsc" && grep -q '^init flag 0$' "$work/mp.vsc" &&
  ok "mp: init values from .bss" || bad "mp: no 'init data 0' / 'init flag 0'"
grep -q '^init data 0$' "$work/mp_nopie.vsc" && ok "mp_nopie: symbols of a non-PIE executable" ||
  bad "mp_nopie: no 'init data 0'"

# Verdicts: these three are sequentially consistent on every run.
for t in mp spinlock queue; do
  out=$("$vsc" check "$work/$t.vsc" 2>&1 | head -1)
  [ "$out" = consistent ] && ok "$t: vsc check says consistent" || bad "$t: vsc check says '$out'"
done
# Store buffering: the target counts the iterations where both reads saw 0;
# vsc check must say inconsistent exactly when there was at least one.
both=$(sed -n 's/^probe_sb: \([0-9]*\) of .*/\1/p' "$work/sb.err")
out=$("$vsc" check "$work/sb.vsc" 2>/dev/null | head -1)
# (grouped: `a && b || c && d` is `((a && b) || c) && d` in sh, which failed
# every run with 0 such iterations)
if { [ "${both:-x}" = 0 ] && [ "$out" = consistent ]; } ||
  { [ "${both:-0}" -gt 0 ] 2>/dev/null && [ "$out" = inconsistent ]; }; then
  ok "sb: $both iterations with both reads 0, vsc check says $out"
else
  bad "sb: $both iterations with both reads 0 but vsc check says '$out'"
fi

# Probes in a shared library only, loaded by the dynamic loader before main.
"$vsc" record -o "$work/lib.vsc" -- "$targets/uses_lib" 300 2> "$work/lib.err"
reads=$(events_of "$work/lib.vsc" | awk '$2 == "r" && $3 == "lib_counter"' | wc -l)
last=$(events_of "$work/lib.vsc" | awk '$2 == "w" && $3 == "lib_counter" { v = $4 } END { print v }')
[ "$reads" = 300 ] && [ "$last" = 300 ] && grep -q '^init lib_counter 0$' "$work/lib.vsc" &&
  ok "probes in a shared library: 300 reads, last write 300, named and initialised from the library" ||
  bad "probes in a shared library: $reads reads, last write '$last': $(cat "$work/lib.err")"

# A library with its own copy of the probes' per-thread log (built with
# -fvisibility=hidden; or loaded by dlopen into an executable not linked
# with -rdynamic), used by one thread with the executable's probes: two logs
# for one thread, their order lost (trial17: each switch looked like a new
# thread with a reused id; lost 0 and `consistent` for a not-SC run). The
# loss is not known, the two files named, vsc check unknown.
"$vsc" record -o "$work/split.vsc" -- "$targets/uses_plugin" split 300 2> "$work/split.err"
st=$?
"$vsc" check "$work/split.vsc" > "$work/split.check" 2>&1
cst=$?
why=$(header "$work/split.vsc" 'loss not known exactly')
if [ $st = 0 ] && [ $cst = 3 ] && [ "$(head -1 "$work/split.check")" = unknown ] &&
  header "$work/split.vsc" 'lost events' | grep -q '^at least ' &&
  echo "$why" | grep -q "a thread used two probe logs" &&
  echo "$why" | grep -q "liblib_plugin.so" && echo "$why" | grep -q "uses_plugin"; then
  ok "one thread, two probe logs (a library with its own copy): loss not known, both files named, check unknown"
else
  bad "one thread, two probe logs: record $st, check $cst ($(head -1 "$work/split.check")), why '$why': $(tail -2 "$work/split.err")"
fi

# A library with probes loaded by dlopen after the recording began: its
# accesses before the recorder finds it are not recorded (trial17: a
# plugin's stores unrecorded, lost 0, `inconsistent` for an SC program).
# Found at the last look (the program ends at once) or by a rescan (it
# waits 800 ms): the loss is not known, the file named, vsc check unknown.
for ms in 0 800; do
  "$vsc" record -o "$work/late$ms.vsc" -- "$targets/uses_plugin" late \
    "$targets/liblib_plugin_dl.so" 1000 $ms 2> "$work/late$ms.err"
  st=$?
  "$vsc" check "$work/late$ms.vsc" > "$work/late$ms.check" 2>&1
  cst=$?
  why=$(header "$work/late$ms.vsc" 'loss not known exactly')
  if [ $st = 0 ] && [ $cst = 3 ] && [ "$(head -1 "$work/late$ms.check")" = unknown ] &&
    grep -q '^# command ended: exit status 0' "$work/late$ms.vsc" &&
    echo "$why" | grep -q "1 file with probes mapped after the recording began ($targets/liblib_plugin_dl.so"; then
    ok "a library loaded by dlopen ${ms} ms before use: named, loss not known, check unknown"
  else
    bad "a library loaded by dlopen ${ms} ms before use: record $st, check $cst ($(head -1 "$work/late$ms.check")), why '$why': $(tail -2 "$work/late$ms.err")"
  fi
done

# Probes of a 16-byte object: no trace holds them; counted lost with that
# reason (trial17: blamed on the ring buffer).
"$vsc" record -o "$work/wide.vsc" -- "$targets/uses_plugin" wide 50 2> "$work/wide.err"
st=$?
if [ $st = 0 ] && [ "$(header "$work/wide.vsc" 'lost events')" = 50 ] &&
  grep -q '^# unsupported access size: 50 probe events of an unsupported access size (16 bytes' "$work/wide.vsc" &&
  grep -q '50 probe events of an unsupported access size (16 bytes' "$work/wide.err"; then
  ok "16-byte probes: 50 counted lost, the reason an unsupported access size"
else
  bad "16-byte probes: record $st, lost '$(header "$work/wide.vsc" 'lost events')': $(tail -3 "$work/wide.err")"
fi

# Mixed sizes on one word (trial16): a 2-byte read of a word written 4 bytes
# at a time, a 4-byte read of an 8-byte store's upper half. A trace has one
# value per variable: the events are counted uncertain, the reason said, and
# vsc check gives no plain verdict (before: inconsistent for the SC packed
# lock; consistent for store buffering through the half).
for m in packed split; do
  n=300 # (small: the arm64 guest runs this under emulation too)
  "$vsc" record -o "$work/mixed_$m.vsc" -- "$targets/probe_mixed" $m $n 2> "$work/mixed_$m.err"
  st=$?
  unsure=$(header "$work/mixed_$m.vsc" 'uncertain values')
  "$vsc" check "$work/mixed_$m.vsc" > "$work/mixed_$m.check" 2>&1
  cst=$?
  if [ $st = 0 ] && [ "${unsure:-0}" -gt 0 ] 2>/dev/null && [ $cst = 3 ] &&
    [ "$(head -1 "$work/mixed_$m.check")" = unknown ] &&
    grep -q "accesses of another size or start" "$work/mixed_$m.check" &&
    grep -q "^# values not observed exactly: .* another size or start" "$work/mixed_$m.vsc" &&
    grep -q "WARNING: .* mixed sizes" "$work/mixed_$m.err"; then
    ok "mixed sizes ($m): $unsure events uncertain, warned, vsc check unknown with the reason"
  else
    bad "mixed sizes ($m): record $st, uncertain '$unsure', check $cst: $(head -2 "$work/mixed_$m.check")"
  fi
done

# ---- 2. to standard output, into vsc check ---------------------------------
out=$("$vsc" record -o - -- "$targets/probe_mp" - 500 2>/dev/null | "$vsc" check - 2>&1 | head -1)
[ "$out" = consistent ] && ok "record -o - | check -" || bad "record -o - | check - said '$out'"

# ---- 3. attach by PID ------------------------------------------------------
"$targets/probe_mp" "$work/pid.notes" 1000 --wait > "$work/pid.ready" &
target=$!; pids="$pids $target"
wait_for "$work/pid.ready" ready
"$vsc" record -v -p "$target" -o "$work/pid.vsc" 2> "$work/pid.err" &
rec=$!
if wait_for "$work/pid.err" "recording"; then
  kill -USR1 "$target"; wait "$target"; wait "$rec"; status=$?
  events_of "$work/pid.vsc" > "$work/pid.got"
  sort -s -n -k1,1 "$work/pid.notes" > "$work/pid.want"
  [ $status = 0 ] && cmp -s "$work/pid.got" "$work/pid.want" &&
    ok "-p PID: per-thread sequences exact ($(wc -l < "$work/pid.want") events)" ||
    bad "-p PID: status $status, sequences differ"
  grep -q '^init data ?$' "$work/pid.vsc" && ok "-p PID: read-first variables get 'init VAR ?'" ||
    bad "-p PID: no 'init data ?'"
else
  bad "-p PID: the recorder did not start: $(cat "$work/pid.err")"; kill "$rec" "$target"
fi

# ---- 4. SIGINT mid-run: a valid, consistent trace; the target lives on -----
"$targets/probe_mp" - 0 --wait --pace 1 > "$work/int.ready" &
target=$!; pids="$pids $target"
wait_for "$work/int.ready" ready
"$vsc" record -v -p "$target" -o "$work/int.vsc" 2> "$work/int.err" &
rec=$!
if wait_for "$work/int.err" "recording"; then
  kill -USR1 "$target"
  # stop once a few batches went by (no clock: the trace is read when it is)
  sleep 0.3
  kill -INT "$rec"; wait "$rec"; status=$?
  events=$(header "$work/int.vsc" events)
  [ $status = 0 ] && [ "${events:-0}" -gt 0 ] && ok "SIGINT: trace written ($events events)" ||
    bad "SIGINT: status $status, $(cat "$work/int.err")"
  [ "$(header "$work/int.vsc" 'lost events')" = 0 ] && ok "SIGINT: 0 lost" || bad "SIGINT: events lost"
  out=$("$vsc" check --timeout 120 "$work/int.vsc" 2>&1 | head -1)
  [ "$out" = consistent ] && ok "SIGINT: the cut is consistent (vsc check)" || bad "SIGINT: vsc check says '$out'"
  # the writer's values must run 1, 2, 3, ... without a hole
  writer=$(events_of "$work/int.vsc" | awk '$2 == "w" && $3 == "data" { print $4 }' |
    awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { print bad ? "hole" : "ok" }')
  [ "$writer" = ok ] && ok "SIGINT: the writer's stores have no hole" || bad "SIGINT: the writer's stores have a hole"
  kill -0 "$target" 2>/dev/null && ok "SIGINT: the target still runs" || bad "SIGINT: the target died"
  kill -TERM "$target"; wait "$target"
  [ $? = 0 ] && ok "SIGINT: the target ended normally afterwards" || bad "SIGINT: target exit status"
else
  bad "SIGINT: the recorder did not start"; kill "$rec" "$target"
fi

# ---- 5. a tiny ring buffer under load ---------------------------------------
# by default the program waits for room: nothing lost
"$vsc" record --ring-size 65536 -o "$work/tinyb.vsc" -- "$targets/probe_mp" - 300000 2> "$work/tinyb.err"
[ "$(header "$work/tinyb.vsc" 'lost events')" = 0 ] && [ "$(header "$work/tinyb.vsc" events)" = 1200000 ] &&
  [ "$(header "$work/tinyb.vsc" 'loss mode')" = block ] &&
  ok "tiny ring, block mode: 1200000 events, 0 lost" ||
  bad "tiny ring, block mode: $(header "$work/tinyb.vsc" events) events, $(header "$work/tinyb.vsc" 'lost events') lost"
# --lossy: loss counted, said, warned
"$vsc" record --lossy --ring-size 65536 -o "$work/tiny.vsc" -- "$targets/probe_mp" - 300000 2> "$work/tiny.err"
[ "$(header "$work/tiny.vsc" 'loss mode')" = drop ] && ok "tiny ring, --lossy: header says drop" ||
  bad "tiny ring, --lossy: loss mode '$(header "$work/tiny.vsc" 'loss mode')'"
lost=$(header "$work/tiny.vsc" 'lost events')
[ "${lost:-0}" -gt 0 ] && ok "tiny ring: $lost events lost, in the header" || bad "tiny ring: no loss counted ($lost)"
grep -q "WARNING: .* events were lost" "$work/tiny.err" && ok "tiny ring: warned on stderr" || bad "tiny ring: no warning"
# the sequence holes agree: events + lost = what the target did (4 per iteration)
total=$(( $(header "$work/tiny.vsc" events) + lost ))
[ "$total" = 1200000 ] && ok "tiny ring: events + lost = 1200000" || bad "tiny ring: events + lost = $total"
"$vsc" check "$work/tiny.vsc" > "$work/tiny.check" 2>&1
st=$?
[ $st = 3 ] && [ "$(head -1 "$work/tiny.check")" = unknown ] && grep -q "events were lost" "$work/tiny.check" &&
  ok "tiny ring: vsc check gives no plain verdict (unknown, status 3, says why)" ||
  bad "tiny ring: vsc check status $st: $(head -2 "$work/tiny.check")"

# ---- 6. refusals: exit 2 and a clear message -------------------------------
refuse() { # NAME PATTERN COMMAND...
  name=$1 pattern=$2; shift 2
  "$@" > /dev/null 2> "$work/refuse.err"; status=$?
  if [ $status = 2 ] && grep -q "$pattern" "$work/refuse.err"; then ok "refuses $name"
  else bad "$name: status $status, message: $(cat "$work/refuse.err")"; fi
}
refuse "a PID that does not exist" "no such process" "$vsc" record -p 999999999 -o "$work/x.vsc"
refuse "a program without vsc probes" "no vsc probes" "$vsc" record -o "$work/x.vsc" -- /bin/true
refuse "a command that does not exist" "cannot run" "$vsc" record -o "$work/x.vsc" -- "$work/nonexistent"
refuse "bad usage" "either -p PID" "$vsc" record -o "$work/x.vsc"
refuse "a bad ring size" "ring-size" "$vsc" record --ring-size 1000 -- /bin/true
refuse "a ring too small for a batch" "ring-size" "$vsc" record --ring-size 4096 -- /bin/true
if command -v setpriv > /dev/null; then
  sleep 30 & other=$!; pids="$pids $other"
  refuse "an unprivileged user tracing root's process" "not allowed to trace" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$vsc" record -p "$other" -o /tmp/never.vsc
  cp "$targets/probe_mp" "$work/probe_mp_copy"; chmod 755 "$work/probe_mp_copy"
  refuse "an unprivileged user without BPF rights" "cannot load the BPF programs" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$vsc" record -o /dev/null -- "$work/probe_mp_copy" - 10
  kill "$other" 2>/dev/null
else
  bad "setpriv (util-linux) is missing: the permission tests cannot run"
fi

# ---- children: a forked child runs the program's code unrecorded ---------
# Its memory is a copy, but a MAP_SHARED mapping is the parent's too: the
# parent read the child's 1 after its own 0, and the trace said inconsistent
# (a wrong verdict: the program is correct). Now the child is counted, the
# loss is not exact, and vsc check says unknown. A child that runs exec at
# once (system()) is another program: the trace stays whole.
"$vsc" record -o "$work/fork.vsc" -- "$targets/probe_fork" shared 2> "$work/fork.err"
st=$?
"$vsc" check "$work/fork.vsc" > "$work/fork.out" 2>&1
cst=$?
if [ $st = 0 ] && [ $cst = 3 ] && grep -q '^# loss not known exactly: 1 child processes ran' "$work/fork.vsc" &&
   grep -q 'events were lost (1 child processes ran the program.s code without exec' "$work/fork.out" &&
   grep -q '^on the events present only: not decided' "$work/fork.out" &&
   [ "$("$vsc" check --accept-incomplete "$work/fork.vsc" 2> /dev/null | head -1)" = inconsistent ]; then
  ok "a child writing MAP_SHARED memory: counted, vsc check unknown with the reason (was inconsistent)"
else
  bad "forked child: record $st, check $cst: $(head -2 "$work/fork.out"), $(grep '^# lo' "$work/fork.vsc")"
fi
# -p after the fork: the fork hooks never saw the child, which keeps
# storing into a MAP_SHARED word the parent reads; the parent's reads of
# values nobody recorded writing came out as a plain `inconsistent` (the
# program is correct). Now the processes of its family that run its code
# are counted at the start: unknown.
"$targets/probe_fork" early 4 > "$work/early.out" & early=$!
pids="$pids $early"
sleep 0.5
"$vsc" record -p $early --duration 1 -o "$work/early.vsc" 2> "$work/early.err"
st=$?
wait $early
"$vsc" check "$work/early.vsc" > "$work/early.check" 2>&1
cst=$?
if [ $st = 0 ] && [ $cst = 3 ] &&
   grep -q '^# loss not known exactly: 1 processes of its family forked before the recording began' "$work/early.vsc" &&
   grep -q 'events were lost (1 processes of its family forked before the recording began' "$work/early.check"; then
  ok "-p after a fork: the child forked before the recording is counted, vsc check unknown"
else
  bad "-p after a fork: record $st, check $cst: $(head -1 "$work/early.check"), $(grep '^# lo' "$work/early.vsc"; tail -2 "$work/early.err")"
fi
"$vsc" record -o "$work/forkexec.vsc" -- "$targets/probe_fork" exec 2> "$work/forkexec.err"
st=$?
"$vsc" check "$work/forkexec.vsc" > "$work/forkexec.out" 2>&1
cst=$?
[ $st = 0 ] && [ $cst = 0 ] && [ "$(header "$work/forkexec.vsc" 'lost events')" = 0 ] &&
  ok "a child that runs exec at once (system()): 0 lost, consistent" ||
  bad "fork and exec: record $st, check $cst: $(head -1 "$work/forkexec.out"), lost $(header "$work/forkexec.vsc" 'lost events')"

# ---- probes in a signal handler ------------------------------------------
# A handler that uses the probes while it interrupts a probe of its thread
# cannot be placed in order: its accesses are performed and counted lost
# (with the reason), never logged. The per-thread log was not reentrant:
# a handler that ran while a full log waited for the recorder wrote past
# its end (the target crashed), and one inside a probe took the probe's
# slot (a silently wrong trace). fault: 3 stores fault inside their
# probes, the SIGSEGV handler makes 2 probed accesses each: exactly 6.
"$vsc" record -o "$work/sigfault.vsc" -- "$targets/probe_signal" fault 3 2> "$work/sigfault.err"
st=$?
"$vsc" check "$work/sigfault.vsc" > "$work/sigfault.out" 2>&1
cst=$?
if [ $st = 0 ] && [ $cst = 3 ] && [ "$(header "$work/sigfault.vsc" 'lost events')" = 6 ] &&
   grep -q '^# accesses made inside a probe (lost): 6 (a signal handler' "$work/sigfault.vsc" &&
   [ "$(events_of "$work/sigfault.vsc" | wc -l)" = 4 ]; then
  ok "signal handler inside a probe (fault): its 6 accesses counted lost with the reason, check unknown"
else
  bad "signal handler inside a probe (fault): record $st, check $cst, lost $(header "$work/sigfault.vsc" 'lost events'): $(tail -2 "$work/sigfault.err")"
fi
# usr1: SIGUSR1 every ~20 us to a thread that stores and loads in a loop.
"$vsc" record -o "$work/sigusr1.vsc" -- "$targets/probe_signal" usr1 100000 2> "$work/sigusr1.err"
st=$?
"$vsc" check "$work/sigusr1.vsc" > "$work/sigusr1.out" 2>&1
cst=$?
lost=$(header "$work/sigusr1.vsc" 'lost events')
nested=$(sed -n 's/^# accesses made inside a probe (lost): \([0-9]*\) .*/\1/p' "$work/sigusr1.vsc")
if [ $st = 0 ] && grep -q '^# command ended: exit status 0' "$work/sigusr1.vsc" &&
   { { [ "$lost" = 0 ] && [ -z "$nested" ] && [ $cst = 0 ]; } ||
     { [ "${nested:-0}" -gt 0 ] && [ "$lost" = "$nested" ] && [ $cst = 3 ]; }; }; then
  ok "signal handler (SIGUSR1 every 20 us): no crash, ${nested:-0} accesses inside probes counted lost, check status $cst"
else
  bad "signal handler (SIGUSR1): record $st, check $cst, lost $lost, nested $nested: $(tail -2 "$work/sigusr1.err")"
fi

echo "record: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
