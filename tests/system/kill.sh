#!/bin/sh
# A target killed (SIGKILL) or ended by exit_group while its threads run,
# recorded by `vsc record` (-p and -- CMD), for real, as root.
#   tests/system/kill.sh VSC TARGETS_DIR [REPEAT]
# REPEAT (default 1, make check-kill): how many times the cases that race
# with the target's end run; `make bench` (bench/record_stress.sh) runs
# them 10 times.
# probe_kill keeps its counter in a file mapped shared, so the counter's
# last value survives the process: every increment 0 .. last-1 must be in
# the trace once, or the loss must be counted (`# lost events:` not 0, an
# inexact loss with its reason) and vsc check must then refuse a plain
# verdict (exit 3). Never `lost 0` with increments missing: a verdict on
# such a trace could be wrong.
# The target and the recorder share one CPU; when the end comes, the
# target's threads go under SCHED_IDLE (SIGUSR1, or by itself) and a CPU hog
# takes the CPU: the threads then meet their end one by one, long after the
# recorder may see the process end (its main thread dead, or stopped at its
# exit). The recorder must wait
# for their ends (where they hand their logs over) before it reads what
# they left. Before it did, it read the logs too early: 'thread logs could
# not be read' (an `at least` loss, 1 run in 2 here), and a thread whose
# end came between the last read of the ring and the read of the logs
# left a record nobody read and nobody counted (tests/system/stress.sh's
# -p kill, 1 run in 19: 27 increments missing with `# lost events: 0`).
# Skips only when this kernel or user cannot record, or without taskset;
# fails instead when VSC_REQUIRE_ALL=1.
set -u
usage="usage: kill.sh VSC TARGETS_DIR [REPEAT]"
vsc=$(cd "$(dirname "${1:?$usage}")" && pwd)/$(basename "$1")
targets=$(cd "${2:?$usage}" && pwd)
repeat=${3:-1}
work=$(mktemp -d /tmp/vsc-kill-test.XXXXXX)
chmod 755 "$work"
pass=0 fail=0
hog=
cleanup() {
  [ -n "$hog" ] && kill -KILL "$hog" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/probe_env.sh"
. "$(dirname "$0")/stress_checks.sh"
require_probes "kill tests"
command -v taskset > /dev/null || skip_all "kill tests" "no taskset to share one CPU"

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
header() { sed -n "s/^# $2: //p" "$1"; }
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
hog_on() { taskset -c "$cpu" sh -c 'while :; do :; done' & hog=$!; }
# SIGKILL, not TERM: a TERM that reaches the hog's shell between its fork
# and its exec is taken by the trap it inherits from this script ('exit 1'
# TERM) and lost, and the hog spins on: under load it starved the next
# case's target (0 increments recorded) and a wait hung on it for 40 min
# (2 runs in 3 here; 300 TERMs right after the fork: a hang; 300 KILLs: none)
hog_off() { kill -KILL "$hog" 2> /dev/null; wait "$hog" 2> /dev/null; hog=; }

# The --watch cases run by pages where hardware watchpoints do not fire
# (x86-64); they skip only where the recorder refuses --watch, saying so.
watch_fires=1
"$vsc" record --watch seen:8 -o "$work/fires.vsc" -- "$targets/probe_kill" 1 "$work/counter" 100 \
  > /dev/null 2> "$work/err"
if grep -q 'hardware watchpoints do not fire' "$work/err"; then
  watch_fires=0
  echo "skip: the --watch cases: hardware watchpoints do not fire on this machine"
fi
# with_watch HOW: whether a case recorded HOW runs here
with_watch() { [ $watch_fires = 1 ] || [ "${1#*--watch}" = "$1" ]; }

# A recorder that hangs is killed, and the run fails (status 137).
rec() { taskset -c "$cpu" timeout -s KILL 120 "$vsc" record "$@"; }

# verdict NAME TRACE STATUS [FIRST]: the trace is whole (each increment
# from FIRST, or from the first recorded, to the counter's last value once),
# or its loss is counted
verdict() {
  name=$1 trace=$2 status=$3 first=${4:-}
  if [ "$status" != 0 ] || ! tail -1 "$trace" | grep -q '^# end of trace:'; then
    bad "$name: record exit $status: $(tail -3 "$work/err")"
    return
  fi
  last=$(od -An -t d8 "$work/counter" | tr -d ' ')
  lost=$(header "$trace" 'lost events') unsure=$(header "$trace" 'uncertain values')
  var=$(awk '$2 == "u" { print $3; exit }' "$trace")
  chain=$(rmw_chain "$trace" "$var" 1 $first)
  top=$(awk -v var="$var" '$2 == "u" && $3 == var && $5 > top { top = $5 } END { print top + 0 }' "$trace")
  if [ "$lost" = 0 ] && [ "$unsure" = 0 ]; then
    case $chain in
      bad*) bad "$name: lost 0, but $chain (counter $last)" ;;
      *) [ "$top" = "$last" ] && ok "$name: 0 lost, $chain increments once, up to $last" ||
        bad "$name: lost 0, but the trace's increments end at $top, the counter at $last" ;;
    esac
    return
  fi
  case $lost in "at least"*)
    grep -q '^# loss not known exactly: ' "$trace" ||
      bad "$name: lost $lost, but the header says not why" ;;
  esac
  "$vsc" check "$trace" > /dev/null 2>&1
  st=$?
  [ $st = 3 ] && ok "$name: lost $lost, $unsure unsure, counted ($last increments); vsc check unknown" ||
    bad "$name: lost $lost, $unsure unsure, but vsc check status $st"
}

# wait_recording: until the recorder (-v) says it records ("recording",
# or "watching" for --watch), at most 10 s
wait_recording() {
  waited=0
  while ! grep -q '^vsc record: \(recording\|watching\)' "$work/err" && [ $waited -lt 100 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
}

# no_unread NAME TRACE: every thread's end was handed over before the
# logs were read (the recorder waited for it)
no_unread() {
  if grep -q '^# loss not known exactly: .*thread logs could not be read' "$2"; then
    bad "$1: $(sed -n 's/^# loss not known exactly: //p' "$2")"
  else
    ok "$1: no thread log left unread"
  fi
}

i=0
while [ $i -lt "$repeat" ]; do
  i=$((i + 1))
  # -p: killed from outside, and ended by its main thread's exit()
  for end in kill exit; do
    t=$work/p-$end.vsc
    # exit: 5 s after its start, after the recording starts (the
    # attach took over 2.7 s at a load of 8 here: the main thread's exit
    # came as the threads were let go, none incremented, 0 events; FAIL)
    [ $end = kill ] && ms=0 || ms=-5000
    taskset -c "$cpu" "$targets/probe_kill" 4 "$work/counter" $ms & pid=$!
    sleep 0.3
    rec -v -p $pid -o "$t" 2> "$work/err" & rpid=$!
    # the end comes while it records: after its start (the attach took
    # 1.7-2 s at a load of 12 on 2 CPUs, past a fixed 1 s)
    waited=0
    while ! grep -q '^vsc record: recording' "$work/err" && [ $waited -lt 100 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
    sleep 0.5
    hog_on
    [ $end = kill ] && kill -USR1 $pid && sleep 0.1 && kill -KILL $pid
    wait $rpid
    st=$?
    hog_off
    wait $pid 2> /dev/null
    verdict "-p, target ${end}ed ($i)" "$t" $st
    no_unread "-p, target ${end}ed ($i)" "$t"
  done
  # -p, a live process whose name holds ') Z' (its state, for a reader of
  # /proc/PID/stat that stops at the first ')'): the recording runs to
  # --duration; before, it stopped at once, 'the process ended'
  cp "$targets/probe_shm" "$work/s) Z"
  "$work/s) Z" target private - 30000 > /dev/null & pid=$!
  sleep 0.3
  rec -p $pid --duration 1 -o "$work/named.vsc" 2> "$work/err"
  st=$? by=$(header "$work/named.vsc" 'recording stopped by')
  kill -KILL $pid 2> /dev/null
  wait $pid 2> /dev/null
  [ $st = 0 ] && [ "$by" = "--duration" ] &&
    ok "-p, a live process named 's) Z': stopped by --duration ($i)" ||
    bad "-p, a live process named 's) Z': record exit $st, stopped by '$by' ($i)"
  # -p of a process that ends and whose pid another process takes at once
  # (ns_last_pid, as root): the recording ends with it; before, the
  # recorder went on with the other process until --duration
  sh -c '"$0" target private - 5000 > /dev/null & p=$!; echo $p > "$1"; wait $p
    echo $((p - 1)) > /proc/sys/kernel/ns_last_pid 2> /dev/null
    sleep 6 & echo $! > "$1.taken"; wait' "$targets/probe_shm" "$work/pid" & runner=$!
  sleep 0.2
  pid=$(cat "$work/pid")
  rec -p $pid --duration 4 -o "$work/reused.vsc" 2> "$work/err"
  st=$? by=$(header "$work/reused.vsc" 'recording stopped by')
  taken=$(cat "$work/pid.taken" 2> /dev/null)
  [ -n "$taken" ] && kill "$taken" 2> /dev/null
  wait $runner 2> /dev/null
  if [ "$taken" != "$pid" ]; then
    echo "note: -p, pid taken again: not taken ($pid, then $taken); not checked"
  elif [ $st = 0 ] && [ "$by" = "the process ended" ]; then
    ok "-p, its pid taken again at its end: the recording ended with it ($i)"
  else
    bad "-p, its pid taken again at its end: record exit $st, stopped by '$by' ($i)"
  fi
  # -- CMD: it kills itself, or its main thread calls exit()
  for ms in 1000 -1000; do
    t=$work/cmd.vsc
    [ $ms -gt 0 ] && name="-- CMD, kills itself ($i)" || name="-- CMD, exits ($i)"
    rec -o "$t" -- "$targets/probe_kill" 4 "$work/counter" $ms 2> "$work/err" & rpid=$!
    sleep 0.8
    hog_on
    wait $rpid
    st=$?
    hog_off
    verdict "$name" "$t" $st 0
    no_unread "$name" "$t"
  done
  # -- CMD: its main thread leaves by pthread_exit, the others run on 3 s
  # (one increment each 10 ms): the exit stop's wait (2 s) ends with them
  # still there, so their logs are read while they run and what they do
  # after is missing; before, that was `# lost events: 0`
  t=$work/cmd-run-on.vsc
  rec -o "$t" -- "$targets/probe_kill" 2 "$work/counter" 300 3000 2> "$work/err"
  verdict "-- CMD, threads run on after the main thread's pthread_exit ($i)" "$t" $? 0
  # ... and on for 20 s: the recorder ends after the exit stop's wait, the
  # command runs on, not recorded; before, the recorder waited for the
  # command's end (20 s; a daemon's: for ever, and ^C did not stop it)
  started=$(date +%s)
  rec -o "$t" -- "$targets/probe_kill" 2 "$work/counter" 300 20000 2> "$work/err"
  st=$? took=$(($(date +%s) - started))
  cmd=$(header "$t" what | sed -n 's/^command (pid \([0-9]*\)).*/\1/p')
  [ -n "$cmd" ] && kill -KILL "$cmd" 2> /dev/null
  # stopped by what happened (was 'the process ended', the command running on)
  by=$(header "$t" 'recording stopped by')
  if [ $st = 0 ] && [ $took -le 10 ] && [ "$by" = "the main thread exited, other threads ran on" ]; then
    ok "-- CMD, threads run on 20 s after the main thread's pthread_exit: recorded in $took s ($i)"
  else
    bad "-- CMD, threads run on 20 s after the main thread's pthread_exit: record exit $st after $took s, stopped by '$by' ($i)"
  fi
  # -- CMD: a worker calls exec 0.5 s in (exec is a group exit of the
  # other threads: the main thread dies first, and the exec waits for its
  # end): the recording ends there, whole, stopped by the exec. Before, the
  # exit stop waited 2 s for the exec'ing thread and took it for one
  # running on: 'at least' lost ('1 threads still ran 2000 ms after the
  # main thread's exit'), vsc check unknown, in 3.8 s instead of 1.3 s
  # inwrite: the main thread killed inside a native write() (system call
  # 1, the number of the 32-bit exit): before, taken for its own exit, so
  # the same 2 s wait and 'at least' lost
  t=$work/cmd-exec.vsc
  for where in "" inwrite; do
    started=$(date +%s%N)
    rec -o "$t" -- "$targets/probe_kill" 2 "$work/counter" 500 exec $where 2> "$work/err"
    st=$? took=$((($(date +%s%N) - started) / 1000000))
    by=$(header "$t" 'recording stopped by') lost=$(header "$t" 'lost events')
    if [ "$lost" = 0 ] && [ "$by" = "another thread's exec (the process runs another program)" ]; then
      verdict "-- CMD, a worker's exec${where:+, the main thread in write()}, recorded in $took ms ($i)" "$t" $st 0
    else
      bad "-- CMD, a worker's exec${where:+, the main thread in write()}: record exit $st after $took ms, lost '$lost', stopped by '$by' ($i)"
    fi
  done
  # ... and with --watch (every thread traced): the exit stop waited for
  # the exec'ing thread, then stopped it (waitpid on a thread that waits
  # in exec for the main thread): the recorder hung (SIGTERM too)
  if with_watch --watch; then
    started=$(date +%s%N)
    taskset -c "$cpu" timeout -s KILL 20 "$vsc" record --watch seen:8 -o "$t" -- \
      "$targets/probe_kill" 2 "$work/counter" 500 exec 2> "$work/err"
    st=$? took=$((($(date +%s%N) - started) / 1000000))
    by=$(header "$t" 'recording stopped by') lost=$(header "$t" 'lost events')
    [ $st = 0 ] && [ "$lost" = 0 ] && [ "$by" = "another thread's exec (the process runs another program)" ] &&
      ok "--watch -- CMD, a worker's exec: recorded in $took ms, 0 lost ($i)" ||
      bad "--watch -- CMD, a worker's exec: record exit $st after $took ms, lost '$lost', stopped by '$by' ($i)"
  fi
  # A worker's exec as the recorder stops every thread at --duration (the
  # process runs on past the recording: -p, and -- CMD): probe_kill
  # execstop's last thread execs once the recorder has stopped the first
  # worker and not yet it. The exec kills every other thread, the held
  # ones too, and waits for their end: a traced thread's end waits for its
  # tracer, which waited for the exec's thread to stop (and seizing any
  # thread waits for the exec). Before, the recorder hung (killed after
  # 30 s: 3 runs in 3); now the recording ends there, the loss counted
  # (the threads' ends hand their logs over), stopped by the exec, or by
  # --duration when the exec came after the stop.
  # --watch (every thread traced: the exec waits for each to be let out
  # of its exit stop too) hung the same way.
  for how in -p -- "--watch -p" "--watch --"; do
    with_watch "$how" || continue
    t=$work/exec-stop.vsc watch=
    case $how in --watch*) watch="--watch seen:8" ;; esac
    if [ "${how#--watch }" = -p ]; then
      taskset -c "$cpu" "$targets/probe_kill" 6 "$work/counter" 2000 execstop & pid=$! first=
      sleep 0.2
      set -- -p $pid --duration 2
    else
      pid= first=0
      set -- --duration 2 --stop-command KILL -- "$targets/probe_kill" 6 "$work/counter" 1500 execstop
    fi
    started=$(date +%s%N)
    taskset -c "$cpu" timeout -s KILL 30 "$vsc" record $watch -o "$t" "$@" 2> "$work/err"
    st=$? took=$((($(date +%s%N) - started) / 1000000))
    [ -n "$pid" ] && kill -KILL $pid 2> /dev/null && wait $pid 2> /dev/null
    by=$(header "$t" 'recording stopped by') name="record $how, a worker's exec as the threads are stopped"
    # the exec may also land after the recorder's last look and before
    # its stop of every thread: then it is seen by the exec count once all
    # are stopped, and said as the process's exec (recorder.c
    # ended_by_exec; 1 CI run in 1 on a 2-core VM)
    case $by in
      "another thread's exec (the process runs another program)" | --duration | \
        "an exec (the process runs another program)") ;;
      *)
        bad "$name: record exit $st after $took ms, stopped by '$by': $(tail -2 "$work/err")"
        continue
        ;;
    esac
    if [ -z "$watch" ]; then
      verdict "$name, stopped by '$by' in $took ms ($i)" "$t" $st $first
    elif [ $st = 0 ] && [ $took -lt 15000 ] && tail -1 "$t" | grep -q '^# end of trace:'; then
      ok "$name, stopped by '$by' in $took ms, lost $(header "$t" 'lost events') ($i)"
    else
      bad "$name: record exit $st after $took ms: $(tail -2 "$work/err")"
    fi
  done
  # -p: its main thread leaves by pthread_exit while the recording runs,
  # the others run on 2 s (one increment each 10 ms), then one calls
  # exit(0); recorded to the end, and stopped by --duration meanwhile.
  # The kernel turns the probes off in a process whose main thread is
  # gone (a uprobe attached to a process follows its main thread's
  # memory): before, what they did after came out `# lost events: 0`
  # (about 400 increments missing), and the stop with --duration hung
  # (the stop loop tried the zombie main thread again forever).
  # (its main thread leaves 1.5 s after its start: the recorder's look
  # at it comes well before, also at a load of 12, where the attach
  # took up to 2 s: the threads are held stopped meanwhile, or the main
  # thread's exit comes during it; both end counted)
  # run_on NAME "RUN_ON [exit32]" [OPTION...]: -p of probe_kill 2 FILE 1500 RUN_ON
  run_on() {
    name=$1 t=$work/p-run-on.vsc
    taskset -c "$cpu" "$targets/probe_kill" 2 "$work/counter" $exit_ms $2 & pid=$!
    shift 2
    sleep 0.2
    rec -p $pid "$@" -o "$t" 2> "$work/err"
    st=$?
    wait $pid 2> /dev/null
    if [ $st = 2 ] && grep -qi -e 'no such process' -e 'main thread has exited' "$work/err"; then
      echo "note: $name: its main thread had exited before the recorder looked (refused); not checked"
    else
      verdict "$name" "$t" $st
    fi
  }
  # the main thread leaves after exit_ms: the workers' 2 s of increments
  # after it are seen however long the attach takes
  exit_ms=1500
  run_on "-p, threads run on after the main thread's pthread_exit, recorded to the end ($i)" 2000
  run_on "-p, threads run on after the main thread's pthread_exit, recorded to the duration ($i)" 2000 --duration 3
  # -p: its main thread leaves by pthread_exit, the others run on 5 ms as
  # fast as they can (batches: probe hits, which the kernel drops now),
  # then one calls exit(0): mostly all gone before the recorder's next
  # look (each 100 ms), which never sees the main thread a zombie with
  # threads running. Before, `# lost events: 0` with thousands of
  # increments missing (3 runs in 6); now the BPF program sees the main
  # thread's own exit while others live. Its exit comes at 4.5 s: at load
  # 10 the attach took up to 2.6 s, and an exit before the probes were in
  # left a trace of 0 increments (right: nothing ran while it recorded)
  # and a FAIL of the case (the 32-bit one, 1 run in 3 here)
  exit_ms=4500
  run_on "-p, threads run on 5 ms after the main thread's pthread_exit ($i)" -5
  # ... its main thread leaving by the 32-bit exit (int 0x80, number 1 of
  # the ia32 table) instead: before, the BPF program knew the native
  # numbers only (1 is write there), missed it, and the trace said
  # `# lost events: 0` with the increments after it missing
  [ "$(uname -m)" = x86_64 ] &&
    run_on "-p, threads run on 5 ms after the main thread's 32-bit exit ($i)" "-5 exit32"
  rm -f "$work"/*.vsc
done

# -p of a process whose main thread has already left by pthread_exit while
# its threads run on: refused with what it is; before, 'not allowed to
# trace process PID (No such process): the kernel's ptrace rules refuse
# it' (/proc/PID/mem of a zombie main thread: ESRCH)
"$targets/probe_kill" 2 "$work/counter" 300 5000 & pid=$!
sleep 1
rec -p $pid -o "$work/headless.vsc" 2> "$work/err"
st=$?
kill -KILL $pid 2> /dev/null
wait $pid 2> /dev/null
if [ $st = 2 ] && grep -q 'its main thread has exited (a zombie) while 2 other threads run on' "$work/err" &&
  ! grep -q 'not allowed' "$work/err"; then
  ok "-p, its main thread already gone, threads running: refused, saying so"
else
  bad "-p, its main thread already gone, threads running: record exit $st: $(cat "$work/err")"
fi

# A thread that does not stop at the end of the recording (PTRACE_INTERRUPT
# does not reach a wait in the kernel such as a vfork's): probe_kill
# vforkstop's last thread waits 20 s for a thread it started with
# CLONE_VFORK (no child process: nothing forked is counted), from SIGUSR2
# on, sent once the recording runs. The stop gives up on it after 5 s,
# stops the others all the same, and the loss is inexact, saying why, so
# vsc check gives no plain verdict. Before, --watch wrote `# lost events:
# 0` (the watchpoints of threads left running go one by one: what one does
# after its own went is missing while another's reads are still recorded),
# and vsc check said consistent.
for how in "--watch seen:8 -p" -p; do
  with_watch "$how" || continue
  t=$work/vfork.vsc name="record $how, a thread in a vfork at the end"
  taskset -c "$cpu" "$targets/probe_kill" 3 "$work/counter" 0 vforkstop & pid=$!
  sleep 0.3
  rec -v $how $pid --duration 2 -o "$t" 2> "$work/err" & rpid=$!
  wait_recording
  kill -USR2 $pid
  wait $rpid
  st=$?
  kill -KILL $pid 2> /dev/null
  wait $pid 2> /dev/null
  why=$(header "$t" 'loss not known exactly')
  "$vsc" check "$t" > /dev/null 2>&1
  check=$?
  case $why in
    *"threads did not stop within 5 s"*)
      [ $st = 0 ] && [ $check = 3 ] && ok "$name: lost $(header "$t" 'lost events'), vsc check unknown" ||
        bad "$name: record exit $st, vsc check $check" ;;
    *) bad "$name: record exit $st, lost '$(header "$t" 'lost events')', vsc check $check, loss not exact: '$why'" ;;
  esac
done

# An exec while the recording runs (not at its end): probe_kill reexec's
# main thread runs the program again (-p: on SIGUSR2, sent once the
# recording runs; -- CMD: after 800 ms); the new program's threads count
# from 0 again in the same file. Its addresses mean nothing to the trace
# (the probes of a process follow its main thread into the new program,
# and so does a watchpoint of the main thread), so the recording ends at
# the exec, whole: every thread of the old program handed its log over at
# its end. Under setarch -R the new program's variables are where the old
# one's were. Before, the recorder went on with the new program until
# --duration: -p, the old program's increments and the new one's (from 0
# again) in one trace, 'lost 0'.
norandom=
setarch "$(uname -m)" -R true 2> /dev/null && norandom="setarch $(uname -m) -R"
for how in -p -- "--watch seen:8 -p" "--watch seen:8 --"; do
  with_watch "$how" || continue
  t=$work/reexec.vsc name="record $how, the main thread's exec while recording"
  rm -f "$t"
  if [ "${how%-p}" != "$how" ]; then
    $norandom taskset -c "$cpu" "$targets/probe_kill" 3 "$work/counter" 0 reexec & pid=$!
    sleep 0.3
    rec -v $how $pid --duration 3 -o "$t" 2> "$work/err" & rpid=$!
    wait_recording
    sleep 0.3
    kill -USR2 $pid
    wait $rpid
    st=$?
    kill -KILL $pid 2> /dev/null
    wait $pid 2> /dev/null
  else
    $norandom taskset -c "$cpu" timeout -s KILL 120 "$vsc" record ${how%--} --duration 3 \
      --stop-command KILL -o "$t" -- "$targets/probe_kill" 3 "$work/counter" 800 reexec 2> "$work/err"
    st=$?
  fi
  by=$(header "$t" 'recording stopped by') lost=$(header "$t" 'lost events')
  case $how in
    --watch*) # one writer (the first worker) of ever larger values
      what=$(awk '$2 == "w" && $3 == "seen" { n++; if (n > 1 && $4 <= last) back++; last = $4 }
        END { printf "%d stores, %d back", n, back }' "$t") ;;
    *) # one counter, each increment once (or accesses that straddled
      # the start of -p, marked unsure: their place is not known, and
      # the increments made before the start are not in the trace;
      # vsc check answers unknown)
      vars=$(awk '$2 == "u" && !seen[$3]++ { n++ } END { print n + 0 }' "$t")
      chain=$(rmw_chain "$t" "$(awk '$2 == "u" { print $3; exit }' "$t")" 1)
      unsure=$(header "$t" 'uncertain values')
      [ "$unsure" != 0 ] && chain="$unsure unsure"
      what="$vars counters, $chain" ;;
  esac
  # a worker the exec killed between its store's announce and publish:
  # whether it was performed is not known, an inexact loss, said so
  case $lost in "at least "*)
    grep -q '^# loss not known exactly: .*inside a store' "$t" && lost=0 what="$what, killed in a store" ;;
  esac
  # --stop-command signals the command's new program (docs/record.md)
  case $how in *--) ended=$(header "$t" 'command ended') ;; *) ended="killed by signal 9 (Killed)" ;; esac
  case "$st $by $lost / $ended / $what" in
    "0 an exec (the process runs another program) 0 / killed by signal 9 (Killed) / "*" 0 back" | \
      "0 an exec (the process runs another program) 0 / killed by signal 9 (Killed) / 1 counters, "[0-9]*)
      ok "$name: stopped by the exec, $lost lost, $what" ;;
    *) bad "$name: record exit $st, stopped by '$by', lost '$lost', command ended '$ended', $what: $(tail -1 "$work/err")" ;;
  esac
done

# -p: a worker's exec while the recording runs (probe_kill exec: the
# first worker runs /bin/true, which ends at once). The exec kills the
# main thread first and waits for its end, so for a moment the main
# thread is a zombie beside threads that live; the new program ends
# before the recorder's next look. The recording ends at the exec,
# whole. Before: 'stopped by: the process ended' (the exec not told), or
# the zombie main thread taken for a pthread_exit, 'at least' lost with
# three reasons and a 5 s wait for the exec's thread (vsc check: unknown).
for i in $(seq "$repeat"); do
  t=$work/exec-p.vsc
  rm -f "$t"
  # the exec 4.5 s after the start: at a load of 10 here the attach took
  # 1.7-2.6 s, and with the exec at 2.5 s it came before the first
  # recorded increment in 3 runs of 3 (0 increments, FAIL)
  taskset -c "$cpu" "$targets/probe_kill" 2 "$work/counter" 4500 exec & pid=$!
  sleep 0.2
  rec -p $pid -o "$t" 2> "$work/err"
  st=$?
  wait $pid 2> /dev/null
  by=$(header "$t" 'recording stopped by') lost=$(header "$t" 'lost events')
  if [ "$lost" = 0 ] && [ "$by" = "an exec (the process runs another program)" ]; then
    verdict "-p, a worker's exec while recording, its new program gone at once ($i)" "$t" $st
  else
    bad "-p, a worker's exec while recording: record exit $st, lost '$lost', stopped by '$by' ($i)"
  fi
done

# -p: the main thread's exec after the recorder's last look and before
# its stop of every thread at --duration: the recorder is held by gdb
# at that stop (its second; the first holds the threads as it attaches)
# while probe_kill reexec runs the program again. The threads stopped
# are the new program's, whose memory is not the trace's: the recording
# ends at the exec, whole. Before, 'stopped by: --duration', and the new
# program's logs were read where the old ones had been (under setarch -R
# the same addresses). Only where gdb is.
if command -v gdb > /dev/null; then
  t=$work/exec-race.vsc
  $norandom "$targets/probe_kill" 3 "$work/counter" 0 reexec & pid=$!
  sleep 0.3
  timeout -s KILL 120 gdb -q -batch -ex 'set breakpoint pending on' \
    -ex 'break vsc_target_stop_all' -ex run -ex continue \
    -ex "shell kill -USR2 $pid; sleep 1" -ex continue \
    --args "$vsc" record -p $pid --duration 2 -o "$t" > "$work/err" 2>&1
  kill -KILL $pid 2> /dev/null
  wait $pid 2> /dev/null
  by=$(header "$t" 'recording stopped by') lost=$(header "$t" 'lost events')
  vars=$(awk '$2 == "u" && !seen[$3]++ { n++ } END { print n + 0 }' "$t")
  chain=$(rmw_chain "$t" "$(awk '$2 == "u" { print $3; exit }' "$t")" 1)
  # values read as the recording began (uncertain) may leave the first
  # increments out: counted, vsc check answers unknown
  [ "$(header "$t" 'uncertain values')" != 0 ] && chain="$(header "$t" 'uncertain values') unsure"
  case "$by $lost / $vars $chain" in
    "an exec (the process runs another program) 0 / 1 "[0-9]*)
      ok "record -p, an exec between the last look and the stop: stopped by it, 0 lost, $chain" ;;
    *) bad "record -p, an exec between the last look and the stop: stopped by '$by', lost '$lost', $vars counters, $chain: $(grep '^vsc record' "$work/err" | tail -1)" ;;
  esac
fi

echo "kill tests: $pass passed, $fail failed"
[ $fail = 0 ]
