#!/bin/sh
# Reports of `vsc check`: --summary adds up, --jobs prints the same bytes as
# a serial run, --svg pictures are well-formed and render to a non-empty PNG,
# and --explain cores name the right trace lines.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# Lab-style files: 40 segments each, a store-buffering test whose iteration
# i%7==3 shows the TSO outcome (both reads see 0).
for f in 1 2 3; do
  {
    echo "init x 0"; echo "init y 0"
    i=0
    while [ $i -lt 40 ]; do
      echo "segment run$f.$i"
      if [ $((i % 7)) -eq 3 ]; then rx=0; ry=0; else rx=1; ry=0; fi
      echo "T1 w x 1"; echo "T1 r y $ry"; echo "T2 w y 1"; echo "T2 r x $rx"
      i=$((i + 1))
    done
  } > "$tmp/lab$f.vsc"
done
files="$tmp/lab1.vsc $tmp/lab2.vsc $tmp/lab3.vsc"

# shellcheck disable=SC2086
"$vsc" check --summary --json $files > "$tmp/sum.json"
[ $? -eq 1 ] || bad "summary exit status"
python3 - "$tmp/sum.json" <<'PY' || bad "summary numbers"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["segments_total"] == 120, s
# i%7==3 for i<40: 3, 10, 17, 24, 31, 38 -> 6 per file
assert s["segments_inconsistent"] == 18, s
assert s["segments_consistent"] + s["segments_inconsistent"] + s["segments_unknown"] == 120
assert sum(s["preemptions"].values()) == s["segments_consistent"]
assert len(s["inconsistent"]) == 18
PY

# --summary of one long execution: its outcome (every value read) is cut
# in the text (10^7 events printed 30 MB on one line), whole in JSON.
"$vsc" gen sc --threads 4 --total 20000 --vars 8 --writers 1 -p 3 --seed 3 -o "$tmp/one.vsc"
"$vsc" check --summary "$tmp/one.vsc" > "$tmp/one.txt"
longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$tmp/one.txt")
[ "$longest" -le 400 ] || bad "--summary text has a line of $longest bytes"
grep -q "values read in all" "$tmp/one.txt" || bad "--summary text does not say the outcome is cut"
"$vsc" check --summary --json "$tmp/one.vsc" | python3 -c '
import json, sys
o = json.load(sys.stdin)["outcomes"][0]["outcome"]
assert o.count(",") + o.count(":") > 5000, len(o)' || bad "--summary --json outcome not whole"
# --summary of long outcomes (more than 4 KB: they wait in a temporary
# file, never whole in memory): the same ones counted once, each in the
# order of its whole text (two share their first 4 KB, one is the start of
# another), whole in JSON, their values counted in the text
python3 - "$tmp/long" <<'PY'
import json, sys
ones = ["1"] * 3000
reads = {  # segment: T1's reads (T2 reads 0 once)
    "a": ones, "b": ones, "c": ones[:-1] + ["2"], "d": ["5"],
    "e": ones[:2000], "f": ones + ["0"], "g": ones[:-1] + ["0"], "h": ones[:2044],
    "i": ones[:2045], "j": ones[:-1] + ["2"], "k": ones[:2043] + ["11"],  # 4095, 4097, 4096 B
}
with open(sys.argv[1] + ".vsc", "w") as f:
    f.write("init x 0\n")
    for seg, values in reads.items():
        f.write(f"segment {seg}\n")
        f.write("".join(f"T1 r x {v}\n" for v in values))
        f.write("T2 r x 0\n")
outcomes = {}
for seg, values in reads.items():
    outcomes.setdefault("T1:" + ",".join(values) + " T2:0", []).append(seg)
json.dump(sorted(outcomes.items(), key=lambda kv: kv[0].encode()), open(sys.argv[1] + ".want", "w"))
PY
"$vsc" check --summary --json "$tmp/long.vsc" > "$tmp/long.json"
"$vsc" check --summary "$tmp/long.vsc" > "$tmp/long.txt"
python3 - "$tmp/long" <<'PY' || bad "--summary of long outcomes"
import json, sys
want = json.load(open(sys.argv[1] + ".want"))
got = [(o["outcome"], [e["segment"] for e in o["executions"]])
       for o in json.load(open(sys.argv[1] + ".json"))["outcomes"]]
assert [w[0] for w in want] == [g[0] for g in got], [(len(g[0]), g[0][-9:]) for g in got]
assert [w[1] for w in want] == [g[1] for g in got], got
text = open(sys.argv[1] + ".txt").read()
for outcome, segs in want:
    n = outcome.count(",") + 2  # a value after each ',', T1's first and T2's
    if len(outcome) > 200:
        assert f"({n} values read in all;" in text, n
    assert f"           in: {' '.join(segs)}\n" in text, segs
PY
# where no temporary file can be made they are held whole: the same report
TMPDIR=$tmp/none "$vsc" check --summary --json "$tmp/long.vsc" > "$tmp/long.held.json"
sed 's/"time_s":[0-9.e-]*//' "$tmp/long.json" > "$tmp/long.a"
sed 's/"time_s":[0-9.e-]*//' "$tmp/long.held.json" > "$tmp/long.b"
cmp -s "$tmp/long.a" "$tmp/long.b" || bad "--summary of long outcomes held whole differs"
# ... and one long execution's outcome adds nothing to the verdict's peak
# RSS (it was made whole in memory beside the program: 2x10^6 events,
# 17.6 MB more; now 0.5 MB, 2.4 MB under qemu-aarch64, whose code cache
# grows with the code run)
if [ -x /usr/bin/time ]; then
  "$vsc" gen sc --threads 2 --total 2000000 --reads 0.9 --seed 1 -o "$tmp/long2m.vsc"
  /usr/bin/time -f %M -o "$tmp/rss.plain" "$vsc" check "$tmp/long2m.vsc" > /dev/null 2>&1
  for opts in "--summary" "--summary --json"; do
    # shellcheck disable=SC2086 # opts are words
    /usr/bin/time -f %M -o "$tmp/rss.summary" "$vsc" check $opts "$tmp/long2m.vsc" \
      > /dev/null 2>&1
    plain=$(tail -1 "$tmp/rss.plain") summary=$(tail -1 "$tmp/rss.summary")
    [ "$summary" -le $((plain + 6144)) ] ||
      bad "one execution of 2x10^6 events, '$opts': peak RSS $summary KB, the verdict's $plain KB"
  done
  rm -f "$tmp/long2m.vsc"
fi
# the values of a cut outcome counted where thread names hold ':' (a
# recorded `tid:4242`): each ':' was counted a value (122 of 120)
awk 'BEGIN { print "init x 0"; for (i = 0; i < 120; i++) print "tid:" i % 2 + 1 " r x 0" }' \
  > "$tmp/colon.vsc"
"$vsc" check --summary "$tmp/colon.vsc" | grep -q "(120 values read in all;" ||
  bad "--summary: the values of tid:1 and tid:2 counted $("$vsc" check --summary "$tmp/colon.vsc" |
    sed -n 's/.*(\([0-9]*\) values read.*/\1/p')"
# segments named past LONG_MAX are no numbered range (strtol saturated
# them, and the range's next number overflowed: the sanitizer build stops)
{ echo "init x 0"; for s in 9223372036854775806 9223372036854775807 9223372036854775808 \
  9223372036854775809; do printf 'segment %s\nT1 r x 0\n' $s; done; } > "$tmp/bigseg.vsc"
"$vsc" check --summary "$tmp/bigseg.vsc" > "$tmp/bigseg.txt" 2>&1
grep -qx "           in: 9223372036854775806-9223372036854775807 9223372036854775808 9223372036854775809" \
  "$tmp/bigseg.txt" || bad "--summary: segments past LONG_MAX: $(grep ' in: \|runtime' "$tmp/bigseg.txt")"

# --jobs: the same output as a serial run, time values aside.
for opts in "--json --min --witness" "--explain" "--summary"; do
  # shellcheck disable=SC2086
  "$vsc" check $opts $files | sed 's/"time_s":[0-9.e-]*//g' > "$tmp/serial"
  # shellcheck disable=SC2086
  "$vsc" check --jobs 3 $opts $files | sed 's/"time_s":[0-9.e-]*//g' > "$tmp/parallel"
  cmp -s "$tmp/serial" "$tmp/parallel" || bad "--jobs 3 $opts differs from serial"
  [ -s "$tmp/serial" ] || bad "--jobs test printed nothing for $opts"
done

# --svg: one well-formed picture per execution; it renders.
"$vsc" check --svg "$tmp/sb.svg" "$dir/store_buffering.vsc" > /dev/null
"$vsc" check --min --svg "$tmp/mp.svg" "$dir/message_passing.vsc" > /dev/null
for svg in "$tmp/sb.svg" "$tmp/mp.svg"; do
  xmllint --noout "$svg" 2>/dev/null || bad "$svg is not well-formed XML"
  if command -v rsvg-convert > /dev/null; then
    rsvg-convert -o "$svg.png" "$svg" && [ -s "$svg.png" ] || bad "$svg does not render"
  elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
    bad "rsvg-convert missing (librsvg2-bin) and VSC_REQUIRE_ALL=1"
  else
    echo "skip: rsvg-convert not installed, pictures not rendered"
  fi
done
grep -q "<rect" "$tmp/sb.svg" || bad "core picture has no boxes"
grep -q "marker-end" "$tmp/sb.svg" || bad "core picture has no forced-order arrows"
"$vsc" check --svg "$tmp/seg.svg" "$tmp/lab1.vsc" > /dev/null
# numbered from 0, like the segments run1.0 .. run1.39
[ -s "$tmp/seg-0.svg" ] && [ -s "$tmp/seg-39.svg" ] && [ ! -e "$tmp/seg-40.svg" ] \
  || bad "one picture per segment, numbered from 0"

# --explain names trace lines: store_buffering.vsc's four events are lines 3-6.
"$vsc" check --explain --json "$dir/store_buffering.vsc" > "$tmp/ex.json"
python3 - "$tmp/ex.json" <<'PY' || bad "explain core"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["core"] == [["T1", 0], ["T1", 1], ["T2", 0], ["T2", 1]], o
assert o["core_minimal"] is True
assert len(o["cycle"]) == 4
PY
"$vsc" check --explain "$dir/store_buffering.vsc" | grep -q "T2\[1\] r x 0 (line 6)" \
  || bad "explain text names line 6"

# --core-out: the core is a trace of its own, inconsistent, naming its
# origin; text and JSON name the same events.
"$vsc" check --explain --json --core-out "$tmp/core.vsc" "$dir/explain_locations.vsc" \
  > "$tmp/loc.json"
[ $? -eq 1 ] || bad "--core-out exit status"
"$vsc" check "$tmp/core.vsc" | head -n 1 | grep -qx inconsistent || bad "core file is not inconsistent"
grep -q "# T2\[1\], line 7: consumer+0x10 mp.c:21" "$tmp/core.vsc" || bad "core file comments"
python3 - "$tmp/loc.json" "$tmp/core.vsc" <<'PY' || bad "core file and JSON name the same events"
import json, re, sys
o = json.loads(open(sys.argv[1]).read())
named = [[m.group(1), int(m.group(2))] for m in re.finditer(r"# (\S+)\[(\d+)\]", open(sys.argv[2]).read())]
assert named == o["core"], (named, o["core"])
PY
"$vsc" check --explain "$dir/explain_locations.vsc" > "$tmp/loc.txt"
for ev in "T1\[0\] w data 7" "T1\[1\] w flag 1" "T2\[0\] r flag 1" "T2\[1\] r data 0"; do
  grep -q "^  $ev" "$tmp/loc.txt" || bad "text core lacks $ev"
done

# --summary --explain: a core per inconsistent segment, text and JSON.
"$vsc" check --summary --explain "$tmp/lab1.vsc" > "$tmp/sumex.txt"
[ "$(grep -c "^    core (4 events):" "$tmp/sumex.txt")" -eq 6 ] || bad "--summary --explain text cores"
"$vsc" check --summary --explain --json "$tmp/lab1.vsc" > "$tmp/sumex.json"
python3 - "$tmp/sumex.json" <<'PY' || bad "--summary --explain JSON cores"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["inconsistent"]) == 6
for seg in s["inconsistent"]:
    assert len(seg["core"]) == 4 and seg["core_minimal"] and len(seg["cycle"]) == 4, seg
PY

# init x ?: the story is a cycle too, with the value the reads fix.
printf 'init x ?\ninit y ?\nT1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x 0\n' > "$tmp/sbq.vsc"
"$vsc" check --explain "$tmp/sbq.vsc" > "$tmp/sbq.txt"
grep -q "init x ? must be 0" "$tmp/sbq.txt" && grep -q "form a cycle" "$tmp/sbq.txt" \
  || bad "init ? explanation has no cycle"

# A single-producer single-consumer ring whose consumer reads one slot's
# old value after seeing the new tail: the core is the 5-event chain
# (slot written twice, tail written, tail read, slot read), and the cycle
# goes through it step by step.
python3 - "$tmp/ring.vsc" <<'PY'
import sys
n, slots, lines, prod, cons = 5000, 4, ["init tail 0", "init head 0"], [], []
lines += ["init slot%d 0" % k for k in range(slots)]
for i in range(n):
    prod += ["P w slot%d %d" % (i % slots, i + 1), "P w tail %d" % (i + 1), "P r head %d" % i]
    cons += ["C r tail %d" % (i + 1), "C r slot%d %d" % (i % slots, i + 1 - slots * (i == 3210)),
             "C w head %d" % (i + 1)]
open(sys.argv[1], "w").write("\n".join(lines + prod + cons) + "\n")
PY
"$vsc" check --explain --json "$tmp/ring.vsc" > "$tmp/ring.json"
python3 - "$tmp/ring.json" <<'PY' || bad "ring: the core is not the 5-event chain"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["core"] == [["P", 3 * 3206], ["P", 3 * 3210], ["P", 3 * 3210 + 1],
                     ["C", 3 * 3210], ["C", 3 * 3210 + 1]], o["core"]
assert [s["order"] for s in o["cycle"]].count("coherence") == 0, o["cycle"]
assert len(o["cycle"]) == 4, o["cycle"]
PY

# At length: a generated 10^5-event trace with one injected stale read gets
# a small core (the injected read and the writes it contradicts), whose
# reproducer is inconsistent, in about the time of the verdict (not timed
# here: bench/explain.sh measures it).
"$vsc" gen sc --threads 8 --total 100000 --vars 64 --writers 1 -p 3 --stale 1 --seed 7 \
  -o "$tmp/big.vsc"
"$vsc" check -p 3 --explain --json --core-out "$tmp/bigcore.vsc" "$tmp/big.vsc" > "$tmp/big.json"
python3 - "$tmp/big.json" <<'PY' || bad "10^5 events: core not small, minimal, with a cycle"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert 2 <= len(o["core"]) <= 12 and o["core_minimal"] and o["cycle"], o
PY
"$vsc" check "$tmp/bigcore.vsc" | head -n 1 | grep -qx inconsistent || bad "10^5 core file"

# Past 2^20 events without recorded times: the proof is looked for from a
# read without a source, a writer group and windows (never prefixes),
# within one verdict's time. A generated 1.1 M-event trace, one writer a
# variable and 4 values, whose stale read is the writer's own (it reads a
# value it wrote earlier and writes again later): its first core, cut from
# a prefix, is not a proof (5 events); the second shrinking runs (said on
# --progress) and gives the 3-event proof, the read, its thread's write of
# the variable before it and a write of the value. The core file is
# inconsistent by the enumerator of sc_brute.py, apart from the solvers.
"$vsc" gen sc --threads 8 --total 1100000 --vars 64 --writers 1 -p 3 --values 4 --stale 1 \
  --seed 3 -o "$tmp/past20.vsc"
"$vsc" check -p 3 --explain --json --progress --core-out "$tmp/past20core.vsc" \
  "$tmp/past20.vsc" > "$tmp/past20.json" 2> "$tmp/past20.err"
grep -q "explain: a core that is a proof" "$tmp/past20.err" ||
  bad "1.1 M events: the shrinking for a proof did not run"
python3 - "$tmp/past20.json" <<'PY' || bad "1.1 M events: not the 3-event proof"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert len(o["core"]) == 3 and o["core_proof"] is True and o["core_minimal"], o
PY
python3 "$dir/sc_brute.py" "$tmp/past20core.vsc" 3 | grep -qx inconsistent ||
  bad "1.1 M events: the core file is consistent by enumeration"
python3 "$dir/sc_brute.py" "$tmp/past20core.vsc" | grep -qx inconsistent ||
  bad "1.1 M events: the core file is consistent by enumeration, unbounded"
rm -f "$tmp/past20.vsc"

# Two RMWs read the same write (a lost update, injected into a generated
# 10^5-event trace): atomicity orders each before the other, so the core is
# found around that cycle: the two RMWs and their source (here a plain write).
"$vsc" gen sc --total 100000 --rmw 0.3 --seed 3 -o "$tmp/rmw.vsc"
python3 "$dir/lost_update.py" "$tmp/rmw.vsc"
"$vsc" check --explain --json --core-out "$tmp/rmwcore.vsc" "$tmp/rmw.vsc" > "$tmp/rmw.json"
python3 - "$tmp/rmw.json" <<'PY' || bad "lost update in 10^5 events: not the 3-event core"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert len(o["core"]) == 3 and o["core_minimal"] and len(o["cycle"]) == 2, o
PY
"$vsc" check "$tmp/rmwcore.vsc" | head -n 1 | grep -qx inconsistent || bad "lost update core file"

# The comments of the core's lines are read in blocks of 1 MiB: the
# message-passing core of explain_locations.vsc after 1 MiB of padding
# less a few bytes, so that one of its lines straddles the two blocks (and
# the file's last line has no newline).
python3 - "$tmp/straddle.vsc" <<'PY'
import sys
head = "init flag 0\ninit data 0\n"
pad = "T3 w z 1\n"
out = head + pad * ((1048576 - len(head) - 12) // len(pad))
out += "T1 w data 7      # producer+0x12 mp.c:10\nT1 w flag 1      # producer+0x1c mp.c:11\n"
out += "T2 r flag 1      # consumer+0x08 mp.c:20\nT2 r data 0      # consumer+0x10 mp.c:21"
open(sys.argv[1], "w").write(out)
PY
"$vsc" check --explain "$tmp/straddle.vsc" > "$tmp/straddle.out"
for where in producer+0x12 producer+0x1c consumer+0x08 consumer+0x10; do
  grep -q "$where mp.c" "$tmp/straddle.out" || bad "comment across 1 MiB blocks: $where missing"
done

# A violation no cycle of forced orders shows (the bound: the execution
# needs 4 preemptions, -p 3 is asked): the whole execution is cut down by
# variables and chunks, and the core is small (a trial that runs out of
# its time under a heavy load may leave another 1-minimal one) and 1-minimal.
"$vsc" gen sc --total 100000 --threads 4 --vars 8 -p 4 --seed 3 -o "$tmp/bound.vsc"
"$vsc" check -p 3 --explain --json --core-out "$tmp/boundcore.vsc" "$tmp/bound.vsc" \
  > "$tmp/bound.json"
python3 - "$tmp/bound.json" <<'PY' || bad "-p 3 on 10^5 events: not a small 1-minimal core"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert 3 <= len(o["core"]) <= 16 and o["core_minimal"] and not o["cycle"], o
PY
"$vsc" check -p 3 "$tmp/boundcore.vsc" | head -n 1 | grep -qx inconsistent || bad "-p 3 core file"
"$vsc" check "$tmp/boundcore.vsc" | head -n 1 | grep -qx consistent || bad "-p 3 core: not the bound"
# the core file names the bound its cores are inconsistent within (its
# header said "inconsistent on its own" alone, and `vsc check` of it says
# consistent); so does the text. Two independent handshakes of one
# preemption each (2 at least): within -p 1 all 8 events are the core.
grep -q '^# core of .*bound\.vsc within -p 3: ' "$tmp/boundcore.vsc" ||
  bad "-p 3 core file: the bound not named"
printf 'T1 w x 1\nT1 r y 1\nT2 r x 1\nT2 w y 1\nT3 w a 1\nT3 r b 1\nT4 r a 1\nT4 w b 1\n' \
  > "$tmp/parts2.vsc"
"$vsc" check -p 1 --explain --core-out "$tmp/parts2core.vsc" "$tmp/parts2.vsc" > "$tmp/parts2.out"
sed -n 2p "$tmp/parts2.out" |
  grep -q '^core: 8 of 8 events are inconsistent on their own within -p 1, each read' ||
  bad "-p 1 explanation: the bound not named: $(sed -n 2p "$tmp/parts2.out")"
grep -q '^# core of .*parts2\.vsc within -p 1: 8 of 8 events, 1-minimal' "$tmp/parts2core.vsc" ||
  bad "-p 1 core file: the bound not named: $(grep '^# core' "$tmp/parts2core.vsc")"
"$vsc" check -p 1 "$tmp/parts2core.vsc" | head -n 1 | grep -qx inconsistent || bad "-p 1 core file"
"$vsc" check "$tmp/parts2core.vsc" | head -n 1 | grep -qx consistent || bad "-p 1 core: not the bound"
# without -p no bound is named
"$vsc" check --explain --core-out "$tmp/sbcore.vsc" "$dir/store_buffering.vsc" > "$tmp/sb.out"
! grep -q 'within -p' "$tmp/sb.out" "$tmp/sbcore.vsc" &&
  grep -q '^# core of .*store_buffering\.vsc: 4 of 4' "$tmp/sbcore.vsc" ||
  bad "no bound: the core file names one, or has no core line"
# ... cut down whole (a generated file, thread after thread, of 10^5
# events: no prefix is looked for), said on --progress
"$vsc" check -p 3 --explain --progress "$tmp/bound.vsc" 2>&1 >/dev/null |
  grep -q "explain: the whole execution" || bad "-p 3: no progress line of the whole execution"

# --timeout stops the shrinking: the core is then said not to be minimal
# (text, JSON and the core file), and is still inconsistent. A counter
# incremented 8000 times with one lost update at the end: every RMW of the
# chain is in the core, so proving it 1-minimal takes 8000 checks of 8000
# events (over 10 s), far more than the time given; the verdict takes a few
# milliseconds, but a slow machine (sanitizers, load) gets a second try with
# 2 s before the verdict is taken to be what ran out, and a third with 8 s
# when the verdict took the 2 s whole (inconsistent, no time left to
# explain: no core; qemu-aarch64 at a load of 14).
python3 - "$tmp/lost.vsc" <<'PY'
import sys
n = 8000
lines = ["vsc 1", "init c 0"] + ["T%d u c %d %d" % (k % 2, k, k + 1) for k in range(n)]
open(sys.argv[1], "w").write("\n".join(lines + ["T0 u c %d 777777" % (n - 1)]) + "\n")
PY
for limit in 0.5 2 8; do
  "$vsc" check --timeout $limit --explain --json --core-out "$tmp/lostcore.vsc" "$tmp/lost.vsc" \
    > "$tmp/lost.json"
  status=$?
  if [ $status -ne 3 ] && { [ $status -ne 1 ] || grep -q '"core_minimal"' "$tmp/lost.json"; }; then
    break
  fi
done
[ $status -eq 1 ] || bad "lost update under --timeout $limit: exit status $status"
python3 - "$tmp/lost.json" <<'PY' || bad "--timeout: the core is not said to be not minimal"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["core_minimal"] is False and len(o["core"]) >= 3, o["core_minimal"]
PY
grep -q "not minimal" "$tmp/lostcore.vsc" || bad "--timeout: the core file does not say not minimal"
"$vsc" check "$tmp/lostcore.vsc" | head -n 1 | grep -qx inconsistent || bad "--timeout: core file"
"$vsc" check --timeout $limit --explain "$tmp/lost.vsc" | grep -q "^core: .*not minimal" ||
  bad "--timeout: the text does not say not minimal"

# --svg of a core: arrows for init ? too, arrowheads off the labels (each
# arrow ends outside the boxes), the picture sized by the core; a long
# witness stays a bounded picture. All render.
"$vsc" check --svg "$tmp/sbq.svg" "$tmp/sbq.vsc" > /dev/null
[ "$(grep -c "marker-end" "$tmp/sbq.svg")" -eq 4 ] || bad "init ? core picture lacks its 4 arrows"
"$vsc" gen sc --threads 4 --total 20000 --vars 8 --writers 1 -p 2000 --seed 3 -o "$tmp/long.vsc"
"$vsc" check --svg "$tmp/long.svg" "$tmp/long.vsc" > /dev/null
width=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$tmp/long.svg" | head -n 1)
[ -n "$width" ] && [ "$width" -le 20000 ] || bad "long witness picture is $width px wide"
"$vsc" gen sc --threads 4 --total 20000 --vars 8 --writers 1 -p 3 --seed 3 --stale 1 -o "$tmp/stale.vsc"
"$vsc" check --svg "$tmp/stale.svg" "$tmp/stale.vsc" > /dev/null
width=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$tmp/stale.svg" | head -n 1)
[ -n "$width" ] && [ "$width" -le 3000 ] || bad "core picture of a 20000-event trace is $width px wide"
# a pool of many threads: lanes only for the threads the boxes have (10^5
# threads drew 10^5 lanes, 10 MB), and the title says so
"$vsc" gen sc --threads 5000 --total 20000 --vars 16 -p 3 --seed 1 -o "$tmp/pool.vsc"
"$vsc" check --svg "$tmp/pool.svg" "$tmp/pool.vsc" > /dev/null
height=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$tmp/pool.svg" | head -n 1)
[ -n "$height" ] && [ "$height" -le 20000 ] || bad "many-thread witness picture is $height px high"
grep -q "lanes of the [0-9]* threads drawn, of 5000" "$tmp/pool.svg" || bad "pool picture title"
# a core too big to draw whole (store buffering around a ring of 300
# threads: a core of 600 events): the picture and the page show 500 of them
awk 'BEGIN { print "vsc 1"; for (i = 0; i < 300; i++) print "init x" i " 0"
	for (i = 0; i < 300; i++) print "T" i " w x" i " 1\nT" i " r x" (i + 1) % 300 " 0" }' \
	> "$tmp/ring.vsc"
"$vsc" check --svg "$tmp/ring.svg" --html "$tmp/ring.html" "$tmp/ring.vsc" > /dev/null
boxes=$(grep -c 'class="event"' "$tmp/ring.svg")
[ "$boxes" -gt 0 ] && [ "$boxes" -le 500 ] || bad "big core picture draws $boxes boxes"
python3 - "$tmp/ring.html" <<'PY' || bad "big core page"
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r'id="vsc-data">(.*?)</script>', page, re.S).group(1))
x = data["executions"][0]
assert 0 < len(x["ev"]) <= 500 and len(x["cycle"]) <= 1000, (len(x["ev"]), len(x["cycle"]))
PY
# Every picture is right and readable (svg_check.py): each text fits its
# box (or is cut, with the whole of it as a tooltip), no label overlaps
# another or a box, and a core's picture draws an arrow for every step that
# --explain lists, the same events in the same order, the chains that
# force a step as well (a recorded Peterson's core drew only its cycle's 3
# outer steps, not the chain of 3 through the other thread, with
# "2. program order" over "3. from-read" and "r counter 5579" past its
# 84-px box: gen/peterson.awk has that shape). Long names are cut; a cycle
# longer than the picture draws says how much it draws.
awk -v n=3000 -v m=10 -f "$dir/gen/peterson.awk" > "$tmp/peterson.vsc"
x=a_variable_name_long_enough_to_overflow_any_box
t=a_thread_name_longer_than_the_margin
printf 'init %s 0\ninit %s 0\n%s0 w %s 123456789012\n%s0 r %s 0\n%s1 w %s 1\n%s1 r %s 0\n' \
  ${x}0 ${x}1 $t ${x}0 $t ${x}1 $t ${x}1 $t ${x}0 > "$tmp/names.vsc"
awk -v k=130 'BEGIN { for (i = 0; i < k; i++) print "init x" i " 0"
  for (i = 0; i < k; i++) print "T" i " r x" i " 1\nT" i " w x" (i + 1) % k " 1" }' \
  > "$tmp/causal.vsc"
for trace in "$tmp/peterson.vsc" "$tmp/names.vsc" "$tmp/causal.vsc" "$tmp/sbq.vsc" \
  "$tmp/stale.vsc" "$dir/store_buffering.vsc" "$dir/explain_locations.vsc"; do
  name=$(basename "$trace" .vsc)
  "$vsc" check --explain --svg "$tmp/$name.check.svg" "$trace" > "$tmp/$name.check.txt"
  python3 "$dir/svg_check.py" "$tmp/$name.check.svg" "$tmp/$name.check.txt" ||
    bad "$name: the core's picture is not right or not readable"
done
grep -q "before T1\[18001\] w turn 0" "$tmp/peterson.check.txt" &&
  [ "$(grep -c 'class="step"' "$tmp/peterson.check.svg")" -eq 6 ] ||
  bad "peterson: its core is not the 3 steps and the chain of 3 it was made for"
grep -q "(250 of the 260 steps of its explanation drawn)" "$tmp/causal.check.svg" ||
  bad "causal cycle of 260 steps: the picture does not say it draws 250"
for svg in "$tmp/mp.svg" "$tmp/long.svg" "$tmp/pool.svg" "$tmp/ring.svg"; do
  python3 "$dir/svg_check.py" "$svg" || bad "$svg is not readable"
done
for svg in "$tmp/sbq.svg" "$tmp/long.svg" "$tmp/stale.svg" "$tmp/pool.svg" "$tmp/ring.svg" \
  "$tmp/peterson.check.svg" "$tmp/names.check.svg" "$tmp/causal.check.svg"; do
  xmllint --noout "$svg" 2>/dev/null || bad "$svg is not well-formed XML"
  if command -v rsvg-convert > /dev/null; then
    rsvg-convert -o "$svg.png" "$svg" && [ -s "$svg.png" ] || bad "$svg does not render"
  fi
done

# A relaxed SPSC ring of the shape vsc record writes (gen/spsc_ring.py:
# spins of identical reads, two store bufferings of head and tail): each
# output that explains it shows its 6-event store buffering, the core file
# is inconsistent by sc_brute.py (apart from the solvers), the picture is
# the core's, not the trace's, and --explain, --svg and --core-out take
# about the verdict's memory, not some 50 bytes an event more (the orders
# of every spin read, numbered 21 bytes an event by Tarjan's search: at
# 10^6 events 92 MB against the verdict's 46; 61 M events took 5.5 GB).
python3 "$dir/gen/spsc_ring.py" 500000 300 2 7 > "$tmp/ring5.vsc"
"$vsc" check --explain --svg "$tmp/ring5.svg" --core-out "$tmp/ring5core.vsc" \
  "$tmp/ring5.vsc" > "$tmp/ring5.out"
grep -q "^core: 6 of [0-9]* events" "$tmp/ring5.out" || bad "ring: core $(sed -n 2p "$tmp/ring5.out")"
grep -q "^a proof" "$tmp/ring5.out" || bad "ring: the core is no proof"
python3 "$dir/sc_brute.py" "$tmp/ring5core.vsc" | grep -qx inconsistent ||
  bad "ring: sc_brute.py finds the core file consistent"
[ "$(grep -c "^4242 \|^4243 " "$tmp/ring5core.vsc")" -eq 6 ] || bad "ring: core file events"
width=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$tmp/ring5.svg" | head -n 1)
[ -n "$width" ] && [ "$width" -le 3000 ] && [ "$(wc -c < "$tmp/ring5.svg")" -le 20000 ] ||
  bad "ring: the core picture of 500,000 events is $width px wide, $(wc -c < "$tmp/ring5.svg") bytes"
xmllint --noout "$tmp/ring5.svg" 2> /dev/null || bad "ring: picture is not well-formed XML"
python3 "$dir/svg_check.py" "$tmp/ring5.svg" "$tmp/ring5.out" || bad "ring: picture not readable"
if [ -x /usr/bin/time ] && ! grep -q __asan_init "$vsc" 2> /dev/null; then
  /usr/bin/time -f %M -o "$tmp/rss.plain" "$vsc" check "$tmp/ring5.vsc" > /dev/null 2>&1
  for opts in "--explain" "--svg $tmp/ring5b.svg" "--core-out $tmp/ring5b.vsc"; do
    # shellcheck disable=SC2086 # opts are words
    /usr/bin/time -f %M -o "$tmp/rss.explain" "$vsc" check $opts "$tmp/ring5.vsc" > /dev/null 2>&1
    plain=$(tail -1 "$tmp/rss.plain") explain=$(tail -1 "$tmp/rss.explain")
    # 20 bytes an event (500,000 events: 10 MB; it takes 7 MB more, before 26)
    [ "$explain" -le $((plain + 10000)) ] ||
      bad "ring of 500,000 events, $opts: peak RSS $explain KB, the verdict's $plain KB"
  done
fi

# --html: one self-contained page, drawn by a real browser (headless
# Chromium): the core's boxes and the cycle's arrows are in the DOM after
# its script ran, and a screenshot is taken.
"$vsc" check --html "$tmp/sb.html" "$dir/store_buffering.vsc" > /dev/null
"$vsc" check --html "$tmp/stale.html" "$tmp/stale.vsc" > /dev/null
"$vsc" check --html "$tmp/peterson.html" "$tmp/peterson.vsc" > /dev/null
"$vsc" check --html "$tmp/names.html" "$tmp/names.vsc" > /dev/null
grep -qiE '<(script|link|img)[^>]+(src|href)=' "$tmp/sb.html" && bad "html page fetches something"
# Every event the page shows carries its trace line's comment (where
# recorders put the program location), not only the core's: a neighbour of
# the core, and each step of a consistent execution's witness window.
cat > "$tmp/noted.vsc" <<'EOF'
init x 0
init y 0
segment bad
T1 w z 5 # setup+0x4 (t.c:3)
T1 w x 1 # left+0x8 (t.c:10)
T1 r y 0 # left+0xc (t.c:11)
T2 w y 1 # right+0x8 (t.c:20)
T2 r x 0 # right+0xc (t.c:21)
segment good
T1 w x 1 # left+0x8 (t.c:10)
T1 r y 1 # left+0xc (t.c:11)
T2 w y 1 # right+0x8 (t.c:20)
T2 r x 0 # right+0xc (t.c:21)
EOF
"$vsc" check --html "$tmp/noted.html" "$tmp/noted.vsc" > /dev/null
grep -q '"w z 5",[0-9]*,"setup+0x4 (t.c:3)",0' "$tmp/noted.html" ||
  bad "html: the core's neighbour lacks its source line"
[ "$(grep -o '"right+0xc (t.c:21)"' "$tmp/noted.html" | wc -l)" -eq 2 ] ||
  bad "html: the witness's events lack their source lines"
# The violating prefix (the page's second view of an inconsistent
# execution): replayed here, apart from vsc, on a 300-event trace whose
# prefix fits the page's window: every step is the thread's next event and
# every read sees the last write (or the initial value); after it, the next
# event of each unfinished thread, one of them within the core's events.
"$vsc" gen sc --total 300 --threads 3 --vars 4 --writers 1 -p 2 --stale 1 --seed 7 \
  -o "$tmp/small.vsc"
"$vsc" check --html "$tmp/small.html" "$tmp/small.vsc" > /dev/null
python3 - "$tmp/small.vsc" "$tmp/small.html" <<'PY' || bad "html: the violating prefix does not replay"
import json, re, sys
init, threads = {}, {}
for line in open(sys.argv[1]):
    f = line.split("#")[0].split()
    if f[:1] == ["init"]:
        init[f[1]] = int(f[2])
    elif f and f[0][0] == "T":
        threads.setdefault(int(f[0][1:]), []).append(f[1:])
page = open(sys.argv[2]).read()
data = json.loads(re.search(r'id="vsc-data">(.*?)</script>', page, re.S).group(1))
x = [e for e in data["executions"] if e["mode"] == "prefix"][0]
steps = [e for e in x["ev"] if not e[6]]
stops = [e for e in x["ev"] if e[6]]
n = int(re.search(r"of (\d+) of 300 events", x["note"]).group(1))
assert len(steps) == n and 100 < n < 300, (n, len(steps))
mem, nxt = dict(init), {t: 0 for t in threads}
for t, i, *_ in steps:
    assert i == nxt[t], (t, i)
    op = threads[t][i]
    if op[0] in ("r", "u"):
        assert mem.get(op[1]) == int(op[2]), (t, i, op, mem.get(op[1]))
    if op[0] in ("w", "u"):
        mem[op[1]] = int(op[-1])
    nxt[t] += 1
assert sorted((e[0], e[1]) for e in stops) == \
    sorted((t, nxt[t]) for t in threads if nxt[t] < len(threads[t])), stops
core = [(e[0], e[1]) for e in data["executions"][0]["ev"] if e[5]]
assert any(min(i for t, i in core if t == e[0]) <= e[1] <= max(i for t, i in core if t == e[0])
           for e in stops if e[0] in {t for t, _ in core}), ("not stopped in the core", stops, core)
PY

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
  # NAME:PAGE; stale.html#1 opens the stale trace's second view, its prefix
  for view in sb:sb.html stale:stale.html prefix:stale.html#1 ring:ring.html \
    peterson:peterson.html names:names.html; do
    page=${view%%:*} url=file://$tmp/${view#*:}
    profile=$(mktemp -d)
    set -- --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$profile"
    timeout 60 "$chromium" "$@" --dump-dom "$url" > "$tmp/$page.dom" 2> /dev/null
    timeout 60 "$chromium" "$@" --screenshot="$tmp/$page.png" --window-size=1200,700 \
      "$url" > /dev/null 2>&1
    rm -rf "$profile"
    [ -s "$tmp/$page.png" ] || bad "no screenshot of the $page page"
  done
  # past 64 threads the page names only the threads it shows, by number
  grep -q 'class="lname"[^>]*>T1<' "$tmp/ring.dom" && ! grep -q '>undefined' "$tmp/ring.dom" ||
    bad "html: the lanes of a 300-thread core are not named"
  grep -q 'class="stop"' "$tmp/prefix.dom" && grep -q 'class="ev next"' "$tmp/prefix.dom" &&
    grep -q 'where the prefix stops' "$tmp/prefix.dom" ||
    bad "html: the violating prefix (where it stops) is not drawn"
  [ "$(grep -o 'class="ev"' "$tmp/prefix.dom" | wc -l)" -ge 100 ] ||
    bad "html: the violating prefix's steps are not drawn"
  [ "$(grep -o 'class="ev core"' "$tmp/sb.dom" | wc -l)" -eq 4 ] || bad "html: not 4 core boxes"
  [ "$(grep -o 'class="step ' "$tmp/sb.dom" | wc -l)" -eq 4 ] || bad "html: not 4 cycle arrows"
  grep -q "T2\[1\] r x 0" "$tmp/sb.dom" || bad "html: the core list lacks T2[1]"
  grep -q 'class="ev core"' "$tmp/stale.dom" && grep -q 'class="ev"' "$tmp/stale.dom" \
    || bad "html: the long trace's core and its neighbours are not drawn"
  # the page's picture as its script drew it (the same checks as --svg's,
  # the fonts as its style sheet sets them): every step the text lists,
  # the chain through the other thread dashed, no label over another
  for page in sb peterson names stale; do
    python3 - "$tmp/$page.dom" "$tmp/$page.view.svg" <<'PY' || bad "html: no picture in the $page page"
import re, sys
dom = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.search(r'<svg id="view".*?</svg>', dom, re.S).group(0))
PY
    explain=$tmp/$page.check.txt
    [ $page = sb ] && explain=$tmp/store_buffering.check.txt
    python3 "$dir/svg_check.py" --fonts lbl=11,lname=12,slbl=10,gap=11 "$tmp/$page.view.svg" \
      "$explain" || bad "html: the $page page's picture is not right or not readable"
  done
  [ "$(grep -o 'class="step [a-z-]* nested"' "$tmp/peterson.dom" | wc -l)" -eq 3 ] ||
    bad "html: the peterson page does not draw the chain of 3 dashed"
elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
  bad "chromium missing (Debian package chromium) and VSC_REQUIRE_ALL=1"
else
  echo "skip: chromium not installed, the html page was not opened in a browser"
fi

[ $fail -eq 0 ] && echo "reports: ok"
[ $fail -eq 0 ]
