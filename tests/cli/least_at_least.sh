#!/bin/sh
# --min stopped by --timeout before any interleaving was found still says
# what it proved: `least: at least N` in text (the line after `unknown`,
# exit status 3) and "least_at_least": N in JSON, beside the keys the
# contract fixes ("preemptions": null, no witness). N is checked against
# the answer itself: -p N-1 must be inconsistent. The trace: a stale read
# among 2 writers and 4 values (vsc gen sc ... --stale 1, 10^5 events),
# inconsistent, whose bound the tries at the least prove within 0.2 s CPU
# and whose --min is still `unknown` after 8 s (at 2 x 10^4 events --min
# decides it within 0.6 s: too close to any timeout). Should --min one day
# decide this trace, the test needs a harder one.
set -u
vsc=${1:?usage: least_at_least.sh PATH-TO-VSC}
case $vsc in /*) ;; *) vsc=$PWD/$vsc ;; esac
tmp=$(mktemp -d /tmp/vsc-least-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
# below WHAT FILE N: the least of FILE said to be at least N: -p N-1 fails
below() {
	"$vsc" check -p $(($3 - 1)) --timeout 60 "$2" > "$tmp/p" 2>&1
	rc=$?
	[ $rc = 1 ] && ok || no "$1: at least $3, but -p $(($3 - 1)) exits $rc: $(head -1 "$tmp/p")"
}

"$vsc" gen sc --threads 8 --vars 64 -p 3 --seed 1 --writers 2 --values 4 --stale 1 \
	--total 100000 -o "$tmp/stale.vsc" || { echo "least_at_least: gen failed"; exit 1; }

# text
"$vsc" check --min --witness --timeout 3 "$tmp/stale.vsc" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 3 ] && ok || no "--min --timeout 3: exit $rc, wanted 3: $(head -3 "$tmp/out")"
[ "$(sed -n 1p "$tmp/out")" = unknown ] && ok || no "first line: $(sed -n 1p "$tmp/out")"
n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/out")
[ -n "$n" ] && [ "$n" -ge 1 ] && ok || no "no 'least: at least N' line: $(cat "$tmp/out")"
grep -q '^witness:' "$tmp/out" && no "a witness printed with no interleaving found" || ok
[ -n "$n" ] && below "--min --timeout 3" "$tmp/stale.vsc" "$n"

# JSON: the contract's keys as they were, and the bound
"$vsc" check --min --json --timeout 3 "$tmp/stale.vsc" > "$tmp/json" 2> "$tmp/err"
rc=$?
[ $rc = 3 ] && ok || no "--min --json --timeout 3: exit $rc, wanted 3"
if command -v python3 > /dev/null; then
	python3 - "$tmp/json" << 'EOF' && ok || no "JSON: $(cat "$tmp/json")"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["verdict"] == "unknown", o
assert o["preemptions"] is None, o
assert "witness" not in o and "least_between" not in o, o
assert isinstance(o["least_at_least"], int) and o["least_at_least"] >= 1, o
for k in ("file", "threads", "events", "writers", "time_s"):
    assert k in o, k
EOF
else
	grep -q '"least_at_least":[1-9][0-9]*[,}]' "$tmp/json" && ok || no "JSON: $(cat "$tmp/json")"
fi

# the bounds at the least go before the cut at the stale read (5 fails
# there within 700 units of work per event, 0.5 s; the cut and the
# refutation at the read take seconds): --min reaches at least 6, with a
# progress line that says so (before: at least 5 up to --timeout 40, and
# no progress line with the bound)
"$vsc" check --min --progress --timeout 12 "$tmp/stale.vsc" > "$tmp/out6" 2> "$tmp/err6"
n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/out6")
[ -n "$n" ] && [ "$n" -ge 6 ] && ok || no "--timeout 12: wanted at least 6: $(cat "$tmp/out6")"
grep -q 'least preemptions at least [1-9]' "$tmp/err6" && ok ||
	no "--progress: no line with the bound: $(tail -3 "$tmp/err6")"

# out of memory after a bound was proven: the bound stays (8 threads, 3
# values, 10^4 events: the own stops prove 18 at once, the search then
# fills the address space; before, only `unknown`)
"$vsc" gen sc --threads 8 --vars 8 --values 3 --total 10000 -p 20 --seed 1 -o "$tmp/p20.vsc" ||
	{ echo "least_at_least: gen failed"; exit 1; }
sh -c 'ulimit -v 100000 && exec "$0" check -j 1 --min --timeout 60 "$1"' "$vsc" "$tmp/p20.vsc" \
	> "$tmp/oom" 2> "$tmp/oomerr"
rc=$?
[ $rc = 3 ] && ok || no "memory cap: exit $rc, wanted 3: $(cat "$tmp/oom" "$tmp/oomerr")"
n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/oom")
if [ -n "$n" ] && [ "$n" -ge 1 ]; then
	ok
	below "memory cap" "$tmp/p20.vsc" "$n"
else
	no "memory cap: no 'least: at least N' line: $(cat "$tmp/oom")"
fi

# independent parts, the first out of memory (the p20 trace above) and a
# later one that settles or adds up: the fold goes on past the first (it
# stopped there: `unknown`, `at least 18`), -j 1 and -j 2 alike, and JSON
# and VSC_STATS say a part ran out of memory
printf 'init sa 0\ninit sb 0\nU1 w sa 1\nU1 r sb 0\nU2 w sb 1\nU2 r sa 0\n' > "$tmp/sb.part"
printf 'init sa 0\ninit sb 0\nU1 w sa 1\nU1 r sb 1\nU2 r sa 1\nU2 w sb 1\n' > "$tmp/one.part"
cat "$tmp/p20.vsc" "$tmp/sb.part" > "$tmp/oom_sb.vsc"
cat "$tmp/p20.vsc" "$tmp/one.part" > "$tmp/oom_one.vsc"
for j in 1 2; do
	VSC_STATS=1 sh -c 'ulimit -v 100000 && exec "$0" check -j '$j' --min --json --timeout 60 "$1"' \
		"$vsc" "$tmp/oom_sb.vsc" > "$tmp/oomsb" 2> "$tmp/oomsberr"
	rc=$?
	[ $rc = 1 ] && grep -q '"verdict":"inconsistent"' "$tmp/oomsb" &&
		grep -q '"parts_out_of_memory":1' "$tmp/oomsb" &&
		grep -q '1 parts out of memory' "$tmp/oomsberr" && ok ||
		no "-j $j: a part out of memory, a later one inconsistent: exit $rc, $(cat "$tmp/oomsb")"
	sh -c 'ulimit -v 100000 && exec "$0" check -j '$j' --min --timeout 60 "$1"' \
		"$vsc" "$tmp/oom_one.vsc" > "$tmp/oomone" 2>&1
	rc=$?
	# the first part proves 18 before its memory runs out, the second's least is 1
	n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/oomone")
	[ $rc = 3 ] && [ -n "$n" ] && [ "$n" -ge 19 ] && ok ||
		no "-j $j: a part out of memory, a later one of least 1: exit $rc, $(cat "$tmp/oomone")"
	[ -n "$n" ] && below "parts, -j $j" "$tmp/oom_one.vsc" "$n"
done

# the last searches by rounds, the one at the least beside the one without
# a bound: a bound that fails raises the least (-p 18 fails in 1.6 s CPU;
# before, the search without a bound alone: at least 18 for 60 s)
"$vsc" check -j 1 --min --timeout 40 "$tmp/p20.vsc" > "$tmp/rounds" 2>&1
n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/rounds")
[ -n "$n" ] && [ "$n" -ge 19 ] && ok || no "rounds: wanted at least 19: $(cat "$tmp/rounds")"
[ -n "$n" ] && below rounds "$tmp/p20.vsc" "$n"

# stopped during coherence saturation (one variable, every value written
# once, 8 threads, 10^6 events: saturation takes 2-4 s): the bounds proven
# before it (the hot variable's, 40) and by it stay; before, only `unknown`
"$vsc" gen sc --threads 8 --vars 1 -p 50 --total 1000000 --seed 1 -o "$tmp/hot.vsc" ||
	{ echo "least_at_least: gen failed"; exit 1; }
"$vsc" check --min --timeout 1.5 "$tmp/hot.vsc" > "$tmp/coh" 2>&1
rc=$?
[ $rc = 3 ] && ok || no "coherence: exit $rc, wanted 3: $(cat "$tmp/coh")"
n=$(sed -n -e 's/^least: at least \([0-9][0-9]*\) .*/\1/p' \
	-e 's/^least: between \([0-9][0-9]*\) .*/\1/p' "$tmp/coh")
if [ -n "$n" ] && [ "$n" -ge 1 ]; then
	ok
	below coherence "$tmp/hot.vsc" "$n"
else
	no "coherence stopped: no 'least: ... N' line: $(cat "$tmp/coh")"
fi

# one variable, 350 threads, 3 values, 40,000 events: the hot variable
# proves 5 and finds a witness of 160 within 0.1 s CPU; SAT's question
# without preemptions, which took 1 s CPU next (and whose stop lost both
# bounds once, then the witness), is skipped since 1 is proven. What
# --timeout 0.5 leaves is checked against the least itself (5, --min
# decides it in about 1 s CPU)
"$vsc" gen sc --threads 350 --vars 1 --values 3 --total 40000 -p 20 --seed 1 \
	-o "$tmp/sat0.vsc" || { echo "least_at_least: gen failed"; exit 1; }
"$vsc" check --min --timeout 0.5 "$tmp/sat0.vsc" > "$tmp/sat0" 2>&1
rc=$?
lo=$(sed -n -e 's/^least: at least \([0-9][0-9]*\) .*/\1/p' \
	-e 's/^least: between \([0-9][0-9]*\) and .*/\1/p' \
	-e 's/^preemptions: \([0-9][0-9]*\) (least)$/\1/p' "$tmp/sat0")
hi=$(sed -n -e 's/^least: between [0-9][0-9]* and \([0-9][0-9]*\) .*/\1/p' \
	-e 's/^preemptions: \([0-9][0-9]*\) (least)$/\1/p' "$tmp/sat0")
"$vsc" check --min --timeout 60 "$tmp/sat0.vsc" > "$tmp/sat0min" 2>&1
least=$(sed -n 's/^preemptions: \([0-9][0-9]*\) (least)$/\1/p' "$tmp/sat0min")
if { [ $rc = 0 ] || [ $rc = 3 ]; } && [ -n "$lo" ] && [ -n "$least" ] && [ "$lo" -ge 1 ] &&
	[ "$lo" -le "$least" ] && [ "${hi:-$least}" -ge "$least" ]; then
	ok
	below "one variable, 350 threads" "$tmp/sat0.vsc" "$lo"
else
	no "one variable, 350 threads: wanted the least ${least:-?} or bounds around it:" \
		"$(cat "$tmp/sat0")"
fi

# replayed WHAT TRACE OUT: the witness in OUT holds TRACE's events, each
# thread's in program order, and replays as an SC interleaving with the
# count OUT says (on a `preemptions: N` or a `least: between` line)
replayed() {
	said=$(sed -n -e 's/^preemptions: \([0-9][0-9]*\).*/\1/p' \
		-e 's/^least: between [0-9][0-9]* and \([0-9][0-9]*\) .*/\1/p' "$3")
	sed -n 's/^  \([^[]*\)\[[0-9]*\] /\1 /p' "$3" > "$tmp/w.events"
	{ grep '^init ' "$2"; cat "$tmp/w.events"; } > "$tmp/w.vsc"
	got=$(awk -f "$(dirname "$0")/gen/replay.awk" "$tmp/w.vsc" "$tmp/w.vsc")
	grep -v '^#\|^vsc\|^init' "$2" | sort -s -k1,1 > "$tmp/t.events"
	if [ -n "$said" ] && [ "$got" = "$said" ] &&
		sort -s -k1,1 "$tmp/w.events" | cmp -s - "$tmp/t.events"; then
		ok
	else
		no "$1: the witness does not replay ('$got', said '$said')"
	fi
}
# 1,000 threads, 100,000 events: the hot variable's bound 6 and witness
# 520 within 0.2 s CPU; SAT's question, skipped now, took 25 s CPU and
# 2.8 GB, and the witness was dropped when it stopped (`at least 6` at
# --timeout 2, and 60). Both bounds kept, the witness replayed.
"$vsc" gen sc --threads 1000 --vars 1 --values 3 --total 100000 -p 20 --seed 1 \
	-o "$tmp/pool.vsc" || { echo "least_at_least: gen failed"; exit 1; }
"$vsc" check --min --witness --timeout 2 "$tmp/pool.vsc" > "$tmp/pool" 2>&1
rc=$?
n=$(sed -n 's/^least: between \([0-9][0-9]*\) and [0-9][0-9]* .*/\1/p' "$tmp/pool")
if [ $rc = 3 ] && [ -n "$n" ] && [ "$n" -ge 1 ]; then
	ok
	below "1,000 threads" "$tmp/pool.vsc" "$n"
	replayed "1,000 threads" "$tmp/pool.vsc" "$tmp/pool"
else
	no "1,000 threads: exit $rc, wanted 'least: between': $(head -3 "$tmp/pool")"
fi

# the same trace generated with no preemption: the hot variable's bound is
# 0, so SAT's question is asked, and --timeout 2 stops it while encoding
# (some 25 s CPU); the hot variable's witness (512) stays (before: only
# `unknown`)
"$vsc" gen sc --threads 1000 --vars 1 --values 3 --total 100000 -p 0 --seed 1 \
	-o "$tmp/pool0.vsc" || { echo "least_at_least: gen failed"; exit 1; }
"$vsc" check --min --witness --timeout 2 "$tmp/pool0.vsc" > "$tmp/pool0" 2>&1
rc=$?
if [ $rc = 3 ] && grep -q '^least: between 0 and [0-9]' "$tmp/pool0"; then
	ok
	replayed "SAT stopped" "$tmp/pool0.vsc" "$tmp/pool0"
else
	no "SAT stopped: exit $rc, wanted 'least: between 0 and M': $(head -3 "$tmp/pool0")"
fi

# two independent parts, the second out of memory after it proved its
# bound (p20.vsc above, at least 18 under the cap), the first decided at
# once (least 2): the parts' lower bound is the sum; before, the part out
# of memory added nothing (`at least 2`). Each part's bound checked alone.
"$vsc" gen sc --threads 3 --vars 2 --values 2 --total 30 -p 3 --seed 1 -o "$tmp/small.vsc" ||
	{ echo "least_at_least: gen failed"; exit 1; }
"$vsc" check --min "$tmp/small.vsc" > "$tmp/small" 2>&1
small=$(sed -n 's/^preemptions: \([0-9][0-9]*\) (least)$/\1/p' "$tmp/small")
{
	grep -v '^#' "$tmp/small.vsc" | sed -e 's/^T/U/' -e 's/ x/ y/'
	grep -v '^vsc 1\|^#' "$tmp/p20.vsc"
} > "$tmp/two.vsc"
for j in 1 2; do
	sh -c 'ulimit -v 100000 && exec "$0" check -j "$2" --min --timeout 60 "$1"' "$vsc" \
		"$tmp/two.vsc" "$j" > "$tmp/two" 2>&1
	n=$(sed -n 's/^least: at least \([0-9][0-9]*\) (no interleaving found)$/\1/p' "$tmp/two")
	if [ -n "$n" ] && [ -n "$small" ] && [ "$n" -gt "$small" ]; then
		ok
		below "parts, -j $j" "$tmp/p20.vsc" $((n - small))
	else
		no "parts out of memory, -j $j: wanted at least more than ${small:-?}: $(cat "$tmp/two")"
	fi
done

# -p N over independent parts each stopped by --timeout with a witness
# (the 1,000-thread part above: its hot variable's, 520; the small part's,
# its least 2): together they fit -p 1000, which is consistent (before:
# unknown); the witness replayed
{
	grep -v '^#' "$tmp/small.vsc" | sed -e 's/^T/U/' -e 's/ x/ y/'
	grep -v '^vsc 1\|^#' "$tmp/pool.vsc"
} > "$tmp/two_hot.vsc"
"$vsc" check -p 1000 --witness --timeout 2 "$tmp/two_hot.vsc" > "$tmp/hot2" 2>&1
rc=$?
if [ $rc = 0 ]; then
	ok
	replayed "parts with witnesses, -p 1000" "$tmp/two_hot.vsc" "$tmp/hot2"
	[ -n "$said" ] && [ "$said" -le 1000 ] && ok || no "-p 1000: a witness of '$said'"
else
	no "parts with witnesses, -p 1000: exit $rc: $(head -2 "$tmp/hot2")"
fi

# without --min no such line or key
"$vsc" check --json --timeout 0.01 "$tmp/stale.vsc" > "$tmp/plain" 2> /dev/null
grep -q least_at_least "$tmp/plain" && no "least_at_least without --min" || ok

echo "least_at_least: $pass passed, $fail failed"
[ "$fail" = 0 ]
