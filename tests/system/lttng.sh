#!/bin/sh
# LTTng system tests, run for real (as root): trace bundled target programs
# with a real lttng-sessiond (started here when none runs, and stopped
# again), convert with `vsc convert`, and compare with what the targets know
# they did; the babeltrace2 sinks against `vsc check`; loss under overload;
# clear errors for a missing vtid context and for corrupt traces.
#
#   tests/system/lttng.sh [BUILD]      (BUILD: the build folder, default build)
#
# Skips (exit 0) only when LTTng is missing or we are not root, and fails
# instead when VSC_REQUIRE_ALL=1.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$build" && pwd)
vsc=$build/vsc
plugins=$build/babeltrace2/plugins
pass=0 fail=0

skip() {
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
    echo "lttng: FAIL: cannot run: $* (VSC_REQUIRE_ALL=1)"; exit 1
  fi
  echo "lttng: SKIP: $*"; exit 0
}
ok() { pass=$((pass + 1)); echo "  ok: $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL: $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (a system lttng-sessiond)"
for t in lttng lttng-sessiond babeltrace2; do
  command -v $t >/dev/null 2>&1 || skip "$t is not installed (scripts/deps.sh)"
done
[ -x "$vsc" ] || { echo "lttng: FAIL: no $vsc"; exit 1; }
[ -f "$plugins/vsc.so" ] || { echo "lttng: FAIL: no $plugins/vsc.so"; exit 1; }

tmp=$(mktemp -d /tmp/vsc-lttng-test.XXXXXX)
daemon_pid="" sessions=""
cleanup() {
  for s in $sessions; do lttng destroy "$s" >/dev/null 2>&1; done
  if [ -n "$daemon_pid" ]; then
    kill "$daemon_pid" 2>/dev/null
    n=0; while kill -0 "$daemon_pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# One test run at a time on this machine: they share the root session daemon.
# (the same lock as scripts/vsc-lttng, which then knows not to take it again)
exec 9>>/tmp/vsc-lttng.lock
flock -w 1800 9 || { echo "lttng: FAIL: another LTTng run holds /tmp/vsc-lttng.lock"; exit 1; }
VSC_LTTNG_LOCKED=1; export VSC_LTTNG_LOCKED

if ! lttng list >/dev/null 2>&1; then
  lttng-sessiond --daemonize >/dev/null 2>&1 9>&- || { echo "lttng: FAIL: cannot start lttng-sessiond"; exit 1; }
  daemon_pid=$(cat /var/run/lttng/lttng-sessiond.pid)
  echo "lttng: started lttng-sessiond (pid $daemon_pid)"
fi

# build_probed OUT SRC [CFLAGS...]: a C target whose probes are LTTng tracepoints
build_probed() {
  out=$1 src=$2
  shift 2
  cc -std=c11 -O2 -Wall -Wextra -Werror -DVSC_PROBE_LTTNG -I"$top/include" "$@" "$src" \
    -o "$out" -L"$build" -lvsc-lttng-ust -llttng-ust -lpthread -Wl,-rpath,"$build"
}
target=$tmp/lttng_target
build_probed "$target" "$top/tests/system/lttng_target.c" ||
  { echo "lttng: FAIL: cannot build the target"; exit 1; }

# trace NAME [CHANNEL OPTIONS] -- CMD...: trace CMD into $tmp/NAME, its
# stdout into $tmp/NAME.out. CONTEXT (default "-t vtid -t vpid") is the
# context, EVENTS (default vsc:* and the statedump) the events.
trace() {
  name=$1; shift
  chan_opts=""
  while [ "$1" != "--" ]; do chan_opts="$chan_opts $1"; shift; done
  shift
  s="vsctest-$$-$name"
  sessions="$sessions $s"
  lttng create "$s" --output="$tmp/$name" >/dev/null &&
  # shellcheck disable=SC2086
  lttng enable-channel -s "$s" -u $chan_opts chan >/dev/null &&
  lttng enable-event -s "$s" -c chan -u "${EVENTS:-vsc:*,lttng_ust_statedump:*}" >/dev/null &&
  { [ -z "${CONTEXT-x}" ] || lttng add-context -s "$s" -c chan -u ${CONTEXT:--t vtid -t vpid} >/dev/null; } &&
  lttng start "$s" >/dev/null &&
  sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/$name.pid" "$@" >"$tmp/$name.out" &&
  lttng stop "$s" >/dev/null &&
  lttng destroy "$s" >/dev/null || { echo "lttng: FAIL: tracing $name failed"; exit 1; }
}

# The pid of the command traced as NAME. Sessions of a daemon record every
# instrumented program, so conversions keep only the test's own process.
pid_of() { cat "$tmp/$1.pid"; }

# Per-thread event lines of a converted trace, without @ts and comments,
# sorted by thread (stable: program order kept).
events_of() {
  grep -E '^[0-9]+ [rwu] ' "$1" | sed -e 's/ @[0-9]*//' -e 's/ *#.*//' | sort -s -n -k1,1
}

echo "lttng: system tests"

# 1. Exact per-thread sequences.
trace seq -- "$target" seq 4 3000
"$vsc" convert --pid "$(pid_of seq)" -o "$tmp/seq.vsc" "$tmp/seq" 2>"$tmp/seq.err"
st=$?
sort -s -n -k1,1 "$tmp/seq.out" >"$tmp/seq.expect"
events_of "$tmp/seq.vsc" >"$tmp/seq.got"
if [ $st = 0 ] && [ "$(wc -l <"$tmp/seq.expect")" = 12000 ] && cmp -s "$tmp/seq.expect" "$tmp/seq.got"; then
  ok "seq: 4 threads x 3000 events, every thread's sequence exact, variables named from symbols"
else
  bad "seq: status $st, $(wc -l <"$tmp/seq.got") events, differences:"
  diff "$tmp/seq.expect" "$tmp/seq.got" | head -5
fi
grep -q '^# lost events: 0$' "$tmp/seq.vsc" && ok "seq: header says 0 lost events" ||
  bad "seq: no '# lost events: 0' header"
threads=$(grep -E '^[0-9]+ ' "$tmp/seq.vsc" | cut -d' ' -f1 | sort -u | wc -l)
[ "$threads" = 4 ] && ok "seq: 4 threads (by vtid)" || bad "seq: $threads threads"

"$vsc" convert --pid "$(pid_of seq)" --elf-init -o "$tmp/seq-init.vsc" "$tmp/seq" 2>/dev/null
inits=$(grep '^init ' "$tmp/seq-init.vsc" | sort | tr '\n' ' ')
[ "$inits" = "init counter 0 init shared 0 init shared:16 0 init shared:24 0 init shared:8 0 " ] &&
  ok "seq: --elf-init gives the globals their ELF values (0, .bss)" || bad "seq: --elf-init: $inits"

# Without the statedump there are no names: addresses stay hex.
EVENTS='vsc:*' trace nostatedump -- "$target" seq 1 3
"$vsc" convert --pid "$(pid_of nostatedump)" "$tmp/nostatedump" 2>/dev/null | grep -qE '^[0-9]+ w 0x[0-9a-f]+ 0( |$)' &&
  ok "without lttng_ust_statedump:* events, variables are hex addresses" ||
  bad "without the statedump: $("$vsc" convert --pid "$(pid_of nostatedump)" "$tmp/nostatedump" 2>&1 | grep -E '^[0-9]+ ' | head -2)"

# 2. The babeltrace2 sinks agree with vsc convert / vsc check.
bt() { babeltrace2 --plugin-path="$plugins" "$@"; }
for run in sb-weak sb-sc; do
  trace "$run" -- "$target" "$run"
  "$vsc" convert --pid "$(pid_of "$run")" -o "$tmp/$run.vsc" "$tmp/$run" 2>/dev/null
  "$vsc" check "$tmp/$run.vsc" >"$tmp/$run.check" 2>/dev/null
  st=$?
  want=0; [ "$run" = sb-weak ] && want=1
  verdict=$(head -1 "$tmp/$run.check")
  sink=$(bt "$tmp/$run" -c sink.vsc.check -p "pid=$(pid_of "$run")" 2>"$tmp/$run.bterr")
  if [ $st = $want ] && [ "$sink" = "$verdict" ]; then
    ok "$run: vsc check says $verdict (status $st), sink.vsc.check says the same"
  else
    bad "$run: vsc check status $st ($verdict), sink.vsc.check: '$sink'"
    head -3 "$tmp/$run.bterr"
  fi
done
bt "$tmp/seq" -c sink.vsc.text -p "pid=$(pid_of seq)" >"$tmp/seq.bt.vsc" 2>/dev/null
if grep -v -e '^# what:' -e '^# when:' "$tmp/seq.bt.vsc" >"$tmp/a" &&
   grep -v -e '^# what:' -e '^# when:' "$tmp/seq.vsc" >"$tmp/b" && cmp -s "$tmp/a" "$tmp/b"; then
  ok "sink.vsc.text writes what vsc convert writes"
else
  bad "sink.vsc.text differs from vsc convert"; diff "$tmp/a" "$tmp/b" | head -5
fi
"$vsc" check "$tmp/seq.vsc" >"$tmp/seq.check" 2>/dev/null
sink=$(bt "$tmp/seq" -c sink.vsc.check -p "pid=$(pid_of seq)" 2>/dev/null)
[ "$sink" = "$(head -1 "$tmp/seq.check")" ] && ok "seq: sink.vsc.check agrees with vsc check ($sink)" ||
  bad "seq: sink.vsc.check '$sink' vs vsc check '$(head -1 "$tmp/seq.check")'"

# 3. Segments: one per iteration, each thread's part in it.
trace segments -- "$target" segments 5
"$vsc" convert --pid "$(pid_of segments)" -o "$tmp/segments.vsc" "$tmp/segments" 2>/dev/null
nseg=$(grep -c '^segment iter[0-4]$' "$tmp/segments.vsc")
per=$(awk '/^segment /{if (n) print n; n=0; next} /^[0-9]+ [rwu] /{n++} END{print n}' "$tmp/segments.vsc" | sort -u | tr '\n' ' ')
if [ "$nseg" = 5 ] && [ "$per" = "4 " ] && "$vsc" check "$tmp/segments.vsc" >/dev/null 2>&1; then
  ok "segments: 5 segments named iter0..iter4, 4 events each, consistent"
else
  bad "segments: $nseg segments, events per segment: $per"
fi

# 4. Overload in discard mode: the loss is counted, and kept + lost = sent.
trace flood --subbuf-size=4096 --num-subbuf=2 --discard -- "$target" flood 4 200000
"$vsc" convert --pid "$(pid_of flood)" -o "$tmp/flood.vsc" "$tmp/flood" 2>"$tmp/flood.err"
st=$?
lost=$(sed -n 's/^# lost events: //p' "$tmp/flood.vsc")
kept=$(grep -cE '^[0-9]+ w ' "$tmp/flood.vsc")
if [ $st = 0 ] && [ "${lost:-0}" -gt 0 ] && grep -q 'discarded' "$tmp/flood.err"; then
  ok "flood: $kept events kept, $lost lost, reported in the header and on stderr"
else
  bad "flood: status $st, lost '${lost:-}', stderr: $(head -2 "$tmp/flood.err")"
fi
# LTTng counts every event it discards: a thread's `vsc:thread` marker,
# sent as the thread starts storing, can be one of them (4 threads: at most
# 4 more than the stores lost; CI once saw 800,001)
sent=$((kept + ${lost:-0}))
[ "$sent" -ge 800000 ] && [ "$sent" -le 800004 ] &&
  ok "flood: kept + lost = 800000 stores sent (+ $((sent - 800000)) thread markers lost)" ||
  bad "flood: kept $kept + lost ${lost:-0} is not 800000 stores + at most 4 thread markers"
bt "$tmp/flood" -c sink.vsc.check -p "pid=$(pid_of flood)" >/dev/null 2>"$tmp/flood.bterr"
grep -q 'discarded' "$tmp/flood.bterr" && ok "flood: sink.vsc.check reports the loss" ||
  bad "flood: sink.vsc.check said nothing of the loss"

# With per-process buffers, a loss is pinned on the process that lost it.
trace perpid --buffers-pid --subbuf-size=4096 --num-subbuf=2 --discard -- \
  sh -c "\"$target\" flood 2 100000 & \"$target\" seq 1 10 >/dev/null; wait"
"$vsc" convert -o "$tmp/perpid.vsc" "$tmp/perpid" 2>/dev/null
lost_list=""
for f in "$tmp"/perpid.vsc.*; do
  lost_list="$lost_list $(grep -cE '^[0-9]+ [rwu] ' "$f"):$(sed -n 's/^# lost events: //p' "$f")"
done
case "$lost_list" in
  *" 10:0"*) quiet_ok=1 ;; *) quiet_ok=0 ;;
esac
flood_lost=$(printf '%s\n' $lost_list | grep -v '^10:' | cut -d: -f2)
if [ "$(ls "$tmp"/perpid.vsc.* 2>/dev/null | wc -l)" = 2 ] && [ $quiet_ok = 1 ] && [ "${flood_lost:-0}" -gt 0 ]; then
  ok "per-process buffers: the flooding process has $flood_lost lost events, the quiet one 0"
else
  bad "per-process buffers: events:lost per file:$lost_list"
fi

# 5. A trace without the vtid context is refused, saying how to fix it.
CONTEXT="" trace novtid -- "$target" sb-sc
"$vsc" convert "$tmp/novtid" >/dev/null 2>"$tmp/novtid.err"
st=$?
if [ $st = 2 ] && grep -q 'lttng add-context -u -t vtid' "$tmp/novtid.err"; then
  ok "no vtid context: refused (status 2) with the add-context command"
else
  bad "no vtid context: status $st, stderr: $(cat "$tmp/novtid.err")"
fi
CONTEXT="-t vtid" trace novpid -- "$target" sb-sc
"$vsc" convert "$tmp/novpid" >/dev/null 2>"$tmp/novpid.err"
[ $? = 2 ] && grep -q 'vpid' "$tmp/novpid.err" && ok "no vpid context: refused" ||
  bad "no vpid context: $(cat "$tmp/novpid.err")"

# 6. Corrupt, truncated and missing traces give clear errors (status 2).
expect_error() { # WHAT DIR PATTERN
  "$vsc" convert "$2" >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st = 2 ] && grep -qi -e "$3" "$tmp/err"; then ok "$1: status 2: $(head -1 "$tmp/err")"
  else bad "$1: status $st, stderr: $(head -3 "$tmp/err")"; fi
}
cp -r "$tmp/seq" "$tmp/trunc"
stream=$(find "$tmp/trunc" -name 'chan_*' -type f -size +8k | head -1)
truncate -s 5000 "$stream"
expect_error "truncated stream" "$tmp/trunc" "corrupt or truncated"
cp -r "$tmp/seq" "$tmp/badmeta"
meta=$(find "$tmp/badmeta" -name metadata | head -1)
dd if=/dev/urandom of="$meta" bs=1 count=200 seek=300 conv=notrunc 2>/dev/null
expect_error "corrupt metadata" "$tmp/badmeta" "metadata .*corrupt"
mkdir "$tmp/empty"
expect_error "folder without a trace" "$tmp/empty" "no CTF trace"
expect_error "missing folder" "$tmp/does-not-exist" "No such file"

# 7. <vsc/probe.h> with -DVSC_PROBE_LTTNG: a program of two C files (no
# extra define anywhere), and a C++ one; the helpers' values and sizes.
cat >"$tmp/part1.c" <<'SRC'
#include <vsc/probe.h>
int64_t counter_a;
void part2(void);
int main(void)
{
	vsc_store64(&counter_a, 7);
	part2();
	return vsc_load64(&counter_a) == 7 ? 0 : 1;
}
SRC
cat >"$tmp/part2.c" <<'SRC'
#include <vsc/probe.h>
int64_t counter_b;
void part2(void)
{
	int64_t expected = 0;
	vsc_fetch_add64(&counter_b, 3);
	vsc_cas64(&counter_b, &expected, 9); /* fails: a read of 3 */
}
SRC
cat >"$tmp/cxx.cpp" <<'SRC'
#include <vsc/probe.h>
#include <cstdio>
int8_t cxx_byte;
int32_t cxx_word;
int main()
{
	vsc_xchg8(&cxx_byte, -1);
	vsc_store32(&cxx_word, -5);
	std::printf("%d\n", (int)vsc_load16((int16_t *)&cxx_word));
	return 0;
}
SRC
link="-L$build -lvsc-lttng-ust -llttng-ust -lpthread -Wl,-rpath,$build"
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Wextra -Werror -DVSC_PROBE_LTTNG -I"$top/include" "$tmp/part1.c" "$tmp/part2.c" \
     -o "$tmp/twofiles" $link &&
   c++ -std=c++17 -Wall -Wextra -Werror -DVSC_PROBE_LTTNG -I"$top/include" "$tmp/cxx.cpp" \
     -o "$tmp/cxx" $link; then
  ok "probe.h: a two-file C program and a C++ program build with -DVSC_PROBE_LTTNG alone"
  trace twofiles.ctf -- "$tmp/twofiles"
  got=$("$vsc" convert --pid "$(pid_of twofiles.ctf)" --no-timestamps "$tmp/twofiles.ctf" 2>/dev/null | grep -E '^[0-9]+ ' | cut -d' ' -f2- | tr '\n' ';')
  [ "$got" = "w counter_a 7;u counter_b 0 3;r counter_b 3;r counter_a 7;" ] &&
    ok "probe.h: both files' events, in order, named (store, fetch-add, failed CAS, load)" ||
    bad "probe.h two files: $got"
  trace cxx.ctf -- "$tmp/cxx"
  got=$("$vsc" convert --pid "$(pid_of cxx.ctf)" --no-timestamps "$tmp/cxx.ctf" 2>/dev/null | grep -E '^[0-9]+ ' | cut -d' ' -f2- | tr '\n' ';')
  # (the 2-byte read of the 4-byte word is a mixed-size access: value unsure)
  [ "$got" = "u cxx_byte 0 -1;w cxx_word -5;r cxx_word -5 # value unsure;" ] &&
    ok "probe.h from C++: 1, 4 and 2 byte accesses, values sign-extended" || bad "probe.h C++: $got"
else
  bad "probe.h: the two-file or the C++ program does not build with -DVSC_PROBE_LTTNG"
fi

# 8. Processes: what carries one label must be one thread of one process.
# Two processes with pid 1 in two pid namespaces (containers), at once:
# keyed by (pid_ns, vpid), each its own trace with exactly its events.
# Before, both were "pid 1", one program whose threads were written 4 and
# 4.1 (or merged into one thread without markers).
if unshare --pid --fork true 2>/dev/null; then
  CONTEXT="-t vtid -t vpid -t pid_ns" trace ns -- sh -c "unshare --pid --fork \"$target\" seq 2 300 >\"$tmp/ns.a\" &
    unshare --pid --fork \"$target\" seq 3 200 >\"$tmp/ns.b\"; wait"
  "$vsc" convert -o "$tmp/ns.vsc" "$tmp/ns" 2>"$tmp/ns.err"
  st=$?
  sort -s -n -k1,1 "$tmp/ns.a" >"$tmp/ns.a.expect"
  sort -s -n -k1,1 "$tmp/ns.b" >"$tmp/ns.b.expect"
  matched=""
  for f in "$tmp"/ns.vsc.1.ns*; do
    events_of "$f" >"$tmp/ns.got"
    for e in a b; do cmp -s "$tmp/ns.$e.expect" "$tmp/ns.got" && matched="$matched$e"; done
  done
  nfiles=$(ls "$tmp"/ns.vsc.1.ns* 2>/dev/null | wc -l)
  if [ $st = 0 ] && [ "$nfiles" = 2 ] && { [ "$matched" = ab ] || [ "$matched" = ba ]; }; then
    ok "pid namespaces: two processes with pid 1, two traces (FILE.1.nsINODE), each exactly its events"
  else
    bad "pid namespaces: status $st, $nfiles files, matched '$matched': $(head -2 "$tmp/ns.err")"
  fi
  "$vsc" convert --pid 1 -o "$tmp/ns1.vsc" "$tmp/ns" 2>"$tmp/ns1.err"
  [ $? = 2 ] && grep -q 'pick one with --pid-ns' "$tmp/ns1.err" &&
    ok "pid namespaces: --pid 1 matches two processes: refused, asks for --pid-ns" ||
    bad "pid namespaces: --pid 1: $(cat "$tmp/ns1.err")"
  first=$(ls "$tmp"/ns.vsc.1.ns* | head -1)
  "$vsc" convert --pid 1 --pid-ns "${first##*.ns}" -o "$tmp/ns2.vsc" "$tmp/ns" 2>/dev/null &&
    cmp -s "$tmp/ns2.vsc" "$first" && ok "pid namespaces: --pid 1 --pid-ns INODE picks that one" ||
    bad "pid namespaces: --pid 1 --pid-ns ${first##*.ns} differs from $first"
  verdicts=$(bt "$tmp/ns" -c sink.vsc.check 2>/dev/null | grep -c '^pid 1 of pid namespace [0-9]*: consistent$')
  [ "$verdicts" = 2 ] && ok "pid namespaces: sink.vsc.check decides each process on its own" ||
    bad "pid namespaces: sink.vsc.check: $(bt "$tmp/ns" -c sink.vsc.check 2>&1 | head -3)"
  # Without the pid_ns context the two cannot be told apart: refused
  # (the markers' process numbers differ), never merged.
  CONTEXT="-t vtid -t vpid" trace nons -- sh -c "unshare --pid --fork \"$target\" seq 2 30 >/dev/null &
    unshare --pid --fork \"$target\" seq 2 30 >/dev/null; wait"
  "$vsc" convert -o "$tmp/nons.vsc" "$tmp/nons" 2>"$tmp/nons.err"
  [ $? = 2 ] && grep -q 'two processes.*pid_ns' "$tmp/nons.err" &&
    ok "pid namespaces without the pid_ns context: refused (status 2), says to add it" ||
    bad "pid namespaces without pid_ns: $(cat "$tmp/nons.err")"
elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
  bad "pid namespaces: unshare --pid --fork fails here (VSC_REQUIRE_ALL=1)"
else
  echo "  skip: pid namespaces: unshare --pid --fork fails here: $(unshare --pid --fork true 2>&1 | head -1)"
fi
# A child forked without LTTng-UST's fork wrapper keeps its parent's vpid
# and vtid: its store of 5 (in its own memory) read as the parent thread's,
# before the parent's read of 1 (inconsistent, wrongly, before). Refused;
# vsc-lttng preloads the wrapper, and the child is a process of its own,
# whose memory may be shared with its parent's (nothing in the trace says):
# the parent's trace alone gets no plain verdict.
trace fork -- "$target" fork
"$vsc" convert --pid "$(pid_of fork)" -o "$tmp/fork.vsc" "$tmp/fork" 2>"$tmp/fork.err"
[ $? = 2 ] && grep -q 'fork wrapper' "$tmp/fork.err" &&
  ok "fork without LTTng-UST's fork wrapper: refused (status 2), not one thread" ||
  bad "fork without the wrapper: $(cat "$tmp/fork.err"; grep -E '^[0-9]+ ' "$tmp/fork.vsc" 2>/dev/null | tr '\n' ';')"
"$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/fork2.vsc" -- "$target" fork >"$tmp/fork2.out" 2>"$tmp/fork2.err"
st=$?
if [ $st = 3 ] && [ "$(grep -cE '^[0-9]+ [rw] forked' "$tmp/fork2.vsc")" = 2 ] &&
   grep -q 'left out 1 events of pid' "$tmp/fork2.err" &&
   grep -q '^# lttng other processes: 1 events of processes of its family' "$tmp/fork2.vsc" &&
   grep -q '^on the events present only: not decided' "$tmp/fork2.out" &&
   [ "$("$vsc" check --accept-incomplete "$tmp/fork2.vsc" 2> /dev/null | head -1)" = consistent ]; then
  ok "fork under vsc-lttng: the parent's 2 events; the child's left out and counted: unknown (status 3)"
else
  bad "fork under vsc-lttng: status $st, $(head -1 "$tmp/fork2.out"), $(grep -v exited "$tmp/fork2.err" | head -2)"
fi
# One pid, two programs in turn (exec): refused, not one program.
CONTEXT="-t vtid -t vpid -t pid_ns" trace exec -- "$target" exec
"$vsc" convert --pid "$(pid_of exec)" -o "$tmp/exec.vsc" "$tmp/exec" 2>"$tmp/exec.err"
[ $? = 2 ] && grep -q 'two processes, one after the other' "$tmp/exec.err" &&
  ok "exec of another instrumented program: refused (status 2), not merged" ||
  bad "exec: $(cat "$tmp/exec.err")"
# A trace without vsc:thread markers (a provider built before them, or a
# session that did not enable them): a thread id used again cannot be told
# from its old thread, so no plain verdict.
EVENTS='vsc:load,vsc:store,vsc:rmw,lttng_ust_statedump:*' trace nomark -- "$target" seq 2 100
"$vsc" convert --pid "$(pid_of nomark)" -o "$tmp/nomark.vsc" "$tmp/nomark" 2>"$tmp/nomark.err"
"$vsc" check "$tmp/nomark.vsc" >"$tmp/nomark.out" 2>&1
st=$?
if [ $st = 3 ] && grep -q '^# uncertain threads: 2$' "$tmp/nomark.vsc" &&
   grep -q 'threads may be several' "$tmp/nomark.out" && grep -q 'no vsc:thread marker' "$tmp/nomark.err"; then
  ok "no vsc:thread markers: '# uncertain threads: 2', vsc check unknown (status 3)"
else
  bad "no markers: check status $st, $(head -2 "$tmp/nomark.out"), header: $(grep uncertain "$tmp/nomark.vsc")"
fi

# 9. The one-liner: scripts/vsc-lttng traces, converts and checks.
"$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/oneliner.vsc" -- "$target" sb-weak \
  >"$tmp/oneliner.out" 2>"$tmp/oneliner.err"
st=$?
if [ $st = 1 ] && [ "$(head -1 "$tmp/oneliner.out")" = inconsistent ] && [ -f "$tmp/oneliner.vsc" ]; then
  ok "vsc-lttng: sb-weak traced, converted, checked: inconsistent (status 1)"
else
  bad "vsc-lttng: status $st, out: $(head -2 "$tmp/oneliner.out"), err: $(tail -2 "$tmp/oneliner.err")"
fi
# Only the command's own process is kept (a session records every
# instrumented program); --all-processes keeps them all.
"$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/own.vsc" --no-check -- \
  sh -c "\"$target\" seq 1 5 >/dev/null; exec \"$target\" sb-sc" 2>"$tmp/own.err"
n=$(grep -cE '^[0-9]+ [rwu] ' "$tmp/own.vsc" 2>/dev/null)
if [ "$n" = 4 ] && grep -q 'left out 5 events of pid' "$tmp/own.err"; then
  ok "vsc-lttng keeps the command's process (4 events), leaves out a child's 5 and says so"
else
  bad "vsc-lttng own process: $n events, stderr: $(grep -v 'exited' "$tmp/own.err" | head -2)"
fi
"$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/all.vsc" --all-processes --no-check -- \
  sh -c "\"$target\" seq 1 5 >/dev/null; exec \"$target\" sb-sc" 2>/dev/null
[ "$(ls "$tmp"/all.vsc.* 2>/dev/null | wc -l)" = 2 ] &&
  ok "vsc-lttng --all-processes: one trace per process (FILE.PID)" ||
  bad "vsc-lttng --all-processes: $(ls "$tmp"/all.vsc* 2>&1)"
# Interrupted while the command runs: the session is destroyed and the
# temporary files removed. (SIGTERM to the process group: a background job
# of a non-interactive shell ignores SIGINT, so SIGINT cannot be tested here;
# the script traps INT, TERM and HUP alike.)
setsid sh -c 'exec "$0" --vsc "$1" -- sleep 60' "$top/scripts/vsc-lttng" "$vsc" \
  >/dev/null 2>"$tmp/intr.err" &
ipid=$!
n=0
while ! lttng list 2>/dev/null | grep -q "vsc-$ipid-" && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
isession=$(lttng list 2>/dev/null | grep -o "vsc-$ipid-[0-9]*" | head -1)
itmp=$(lttng list "$isession" 2>/dev/null | sed -n 's|^ *Trace output: \(.*\)/trace$|\1|p')
kill -TERM -$ipid 2>/dev/null
wait $ipid
st=$?
if [ $st = 130 ] && [ -n "$itmp" ] && [ ! -d "$itmp" ] && ! lttng list 2>/dev/null | grep -q "vsc-$ipid-" &&
   grep -q 'interrupted, cleaning up' "$tmp/intr.err"; then
  ok "vsc-lttng interrupted: status 130, session destroyed, temporary files removed"
else
  bad "vsc-lttng interrupted: status $st, temp '$itmp', $(lttng list 2>/dev/null | grep -c "vsc-$ipid-") sessions left, $(cat "$tmp/intr.err")"
fi
# The disk that holds the trace fills up: LTTng's consumer cannot write,
# and the blocking channel makes the program wait for ever (so do stop and
# destroy). vsc-lttng says so while it waits and, once the program is
# stopped, refuses the trace (status 2) rather than convert one that may
# lack events without a count. Before, it waited for ever without a word.
full=$tmp/full
mkdir -p "$full"
if mount -t tmpfs -o size=2m tmpfs "$full" 2>/dev/null; then
  "$top/scripts/vsc-lttng" --vsc "$vsc" -t "$full/ctf" -- "$target" flood 2 100000000 \
    >"$tmp/full.out" 2>"$tmp/full.err" &
  fpid=$!
  n=0
  while ! grep -q ' is full ' "$tmp/full.err" && kill -0 $fpid 2>/dev/null && [ $n -lt 600 ]; do
    sleep 0.1; n=$((n + 1))
  done
  said=$(grep -c ' is full ' "$tmp/full.err")
  for c in $(ps -o pid= --ppid $fpid); do kill -KILL "$c" 2>/dev/null; done
  n=0
  while kill -0 $fpid 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
  kill -0 $fpid 2>/dev/null && kill -KILL $fpid
  wait $fpid
  st=$?
  umount "$full"
  if [ "$said" = 1 ] && [ $st = 2 ] && [ ! -s "$tmp/full.out" ] &&
     grep -q 'was full while tracing' "$tmp/full.err"; then
    ok "trace's disk full: said while the program waits, then no verdict (status 2)"
  else
    bad "trace's disk full: said $said times, status $st, out '$(head -1 "$tmp/full.out")': $(tail -2 "$tmp/full.err")"
  fi
elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
  bad "trace's disk full: cannot mount a small tmpfs (VSC_REQUIRE_ALL=1)"
else
  echo "  skip: trace's disk full: cannot mount a small tmpfs"
fi
# Mixed sizes on one word (trial16, tests/targets/probe_mixed.c): the
# converter counts the events uncertain and vsc check gives no plain verdict
# (before: a plain inconsistent for the SC packed ticket lock).
mixed=$tmp/probe_mixed
if build_probed "$mixed" "$top/tests/targets/probe_mixed.c" -D_GNU_SOURCE; then
  for m in packed split; do
    trace "mixed_$m" -- "$mixed" $m 1000
    "$vsc" convert --pid "$(pid_of "mixed_$m")" -o "$tmp/mixed_$m.vsc" "$tmp/mixed_$m" 2>/dev/null
    unsure=$(sed -n 's/^# uncertain values: //p' "$tmp/mixed_$m.vsc")
    "$vsc" check "$tmp/mixed_$m.vsc" >"$tmp/mixed_$m.check" 2>&1
    st=$?
    if [ "${unsure:-0}" -gt 0 ] 2>/dev/null && [ $st = 3 ] &&
      [ "$(head -1 "$tmp/mixed_$m.check")" = unknown ] &&
      grep -q "accesses of another size or start" "$tmp/mixed_$m.check"; then
      ok "mixed sizes ($m): $unsure events uncertain, vsc check unknown with the reason"
    else
      bad "mixed sizes ($m): uncertain '$unsure', check $st: $(head -2 "$tmp/mixed_$m.check")"
    fi
  done
else
  bad "mixed sizes: cannot build probe_mixed with LTTng"
fi
# Probes in a signal handler. A handler that ran between a helper's
# tracepoint and its access (a store's event comes before the store) was
# written on the wrong side of it: a plain, wrong `inconsistent`. The guard
# spans both now: such a handler's accesses are performed, not traced, and
# vsc:nested counts them (lost, with the reason). fault: 3 stores fault
# inside their probes, the handler reads the page (the old value) and
# stores it: exactly 6.
sigt=$tmp/probe_signal
if build_probed "$sigt" "$top/tests/targets/probe_signal.c" -D_GNU_SOURCE; then
  for run in "fault 3" "usr1 20000"; do
    name=sig_${run%% *}
    # shellcheck disable=SC2086
    trace "$name" --subbuf-size=4M --num-subbuf=4 -- "$sigt" $run
    "$vsc" convert --pid "$(pid_of "$name")" -o "$tmp/$name.vsc" "$tmp/$name" 2>"$tmp/$name.err"
    st=$?
    "$vsc" check "$tmp/$name.vsc" >"$tmp/$name.check" 2>&1
    cst=$?
    lost=$(sed -n 's/^# lost events: //p' "$tmp/$name.vsc")
    nested=$(sed -n 's/^# accesses made inside a probe (lost): \([0-9]*\) .*/\1/p' "$tmp/$name.vsc")
    if [ "$run" = "fault 3" ]; then
      [ $st = 0 ] && [ $cst = 3 ] && [ "$lost" = 6 ] && [ "$nested" = 6 ]
    else
      # (a discarding channel may lose more: lost >= nested)
      [ $st = 0 ] && { { [ "$lost" = 0 ] && [ -z "$nested" ] && [ $cst = 0 ]; } ||
        { [ "${nested:-0}" -gt 0 ] && [ "$lost" -ge "$nested" ] && [ $cst = 3 ]; }; }
    fi && ok "signal handler ($run): ${nested:-0} accesses inside probes counted lost, check status $cst" ||
      bad "signal handler ($run): convert $st, check $cst ($(head -1 "$tmp/$name.check")), lost $lost, nested $nested"
  done
else
  bad "cannot build probe_signal for LTTng"
fi

if lttng list 2>/dev/null | grep -q "vsc-[0-9]"; then bad "vsc-lttng left a session behind"
else ok "vsc-lttng left no session behind"; fi

echo "lttng: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
