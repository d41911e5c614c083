#!/bin/sh
# Lab runs (docs/lab.md, docs/litmus.md): how close <vsc/lab.h> stays to the
# plain test and what recording costs.
# - instructions between SB's store and load (objdump; plain and lab.h run
#   one loop, tests/targets/lab_driver.h);
# - lab_sb / lab_mp (plain and lab.h alternated per iteration in one run):
#   iterations/s, the weak rate of both builds, and the wall time of the run
#   recorded with eBPF (vsc record) and LTTng (scripts/vsc-lttng) against
#   the same run not recorded, with the events lost;
# - vsc litmus on every shipped x86 test: iterations/s run alone, and the
#   wall time of the whole command recorded vs --no-record.
# Usage: bench/lab.sh BUILD-DIR [ITERATIONS]  (root; ITERATIONS default
# 100000, BENCH_QUICK=1: 20000). Writes bench/results/lab.md.
set -u
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$build/vsc
n=${2:-100000}
[ "${BENCH_QUICK:-0}" = 1 ] && n=20000
out=$top/bench/results/lab.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench/lab.sh: recording needs root" >&2; exit 1; }

now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; }

# instructions strictly between the first `movl $0x1,(mem)` of FUNCTION and
# the next load from memory (SB's store and load)
between() {
  objdump -d --no-show-raw-insn "$1" | awk -v fn="<$2>:" '
    $2 == fn { inside = 1; next }
    inside && /^$/ { exit }
    inside && !seen && /movl +\$0x1,\(/ { seen = 1; count = 0; next }
    inside && seen && /mov[a-z]* +[-0-9a-fx]*\(%[a-z0-9]+[^)]*\),%/ { print count; exit }
    inside && seen { count++ }'
}

{
echo "# Lab runs: lab.h against the plain test, recording against not recording"
echo
echo "Machine: $(nproc) CPUs, $(uname -m), kernel $(uname -r); load average at start:"
echo "$(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$top" rev-parse --short HEAD)."
echo "Wall times are inflated when other jobs share the machine; the rates are"
echo "whatever the hardware does."
echo
echo "## Instructions between SB's store and its load (objdump, $(cc --version | head -1))"
echo
echo "| build | instructions |"
echo "|---|---|"
echo "| plain and lab.h (one loop: run_block) | $(between "$build/targets/lab_sb" run_block) |"
echo
echo "## lab_sb and lab_mp: $n iterations of each build, alternated"
echo
echo "| test | run | wall s | iterations/s (both builds) | weak plain | weak lab.h | recorded / plain | lost |"
echo "|---|---|---|---|---|---|---|---|"
} > "$tmp/md"

for t in sb mp; do
  target=$build/targets/lab_$t
  t0=$(now); "$target" "$n" "$tmp/o.txt" 2> "$tmp/plain.err"; t1=$(now)
  plain=$(secs "$t0" "$t1")
  counts() { grep "^lab_$t: plain" "$1" | awk '{ print $5, $10 }'; }
  set -- $(counts "$tmp/plain.err")
  echo "| lab_$t | not recorded | $plain | $(echo "$n $plain" | awk '{ printf "%.0f", 2 * $1 / $2 }') | $1 | $2 | 1 | - |" >> "$tmp/md"
  t0=$(now); "$vsc" record -o "$tmp/t.vsc" -- "$target" "$n" "$tmp/o.txt" 2> "$tmp/rec.err"; t1=$(now)
  rec=$(secs "$t0" "$t1")
  lost=$(sed -n 's/^# lost events: //p' "$tmp/t.vsc")
  set -- $(counts "$tmp/rec.err")
  echo "| lab_$t | vsc record (eBPF) | $rec | $(echo "$n $rec" | awk '{ printf "%.0f", 2 * $1 / $2 }') | $1 | $2 | $(echo "$rec $plain" | awk '{ printf "%.1fx", $1 / $2 }') | $lost |" >> "$tmp/md"
  if [ -x "$target-lttng" ]; then
    t0=$(now)
    "$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/l.vsc" --no-check -- "$target-lttng" "$n" \
      "$tmp/o.txt" 2> "$tmp/lt.err" > /dev/null
    t1=$(now)
    lt=$(secs "$t0" "$t1")
    lost=$(sed -n 's/^# lost events: //p' "$tmp/l.vsc")
    set -- $(counts "$tmp/lt.err")
    echo "| lab_$t | vsc-lttng (LTTng) | $lt | $(echo "$n $lt" | awk '{ printf "%.0f", 2 * $1 / $2 }') | $1 | $2 | $(echo "$lt $plain" | awk '{ printf "%.1fx", $1 / $2 }') | $lost |" >> "$tmp/md"
  fi
done

m=$((n / 10))
{
echo
echo "## vsc litmus, every shipped x86 test, $m iterations"
echo
echo "Wall time of the whole command (generate, build, run, and with recording:"
echo "record, decide every execution); the test program alone in iterations/s."
echo
echo "| test | program alone: iterations/s | --no-record s | recorded s | recorded / not | executions decided | weak (not SC) |"
echo "|---|---|---|---|---|---|---|"
} >> "$tmp/md"
for f in "$top"/tests/litmus/x86/*.litmus; do
  name=$(basename "$f" .litmus)
  "$vsc" litmus --build-only -n "$m" -o "$tmp/keep" "$f" > /dev/null || continue
  t0=$(now); "$tmp/keep/$name/test" "$tmp/keep/o.txt"; t1=$(now)
  alone=$(echo "$m $(secs "$t0" "$t1")" | awk '{ printf "%.0f", $1 / ($2 > 0 ? $2 : 0.01) }')
  t0=$(now); "$vsc" litmus --no-record -n "$m" "$f" > /dev/null; t1=$(now)
  norec=$(secs "$t0" "$t1")
  t0=$(now); "$vsc" litmus --json -n "$m" "$f" > "$tmp/r.json"; t1=$(now)
  rec=$(secs "$t0" "$t1")
  python3 - "$tmp/r.json" "$name" "$alone" "$norec" "$rec" >> "$tmp/md" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name, alone, norec, rec = sys.argv[2:]
print("| %s | %s | %s | %s | %.1fx | %d agree, %d disagree, %d unknown | %d |" % (
    name, alone, norec, rec, float(rec) / max(float(norec), 0.01), r["verdicts_agree"],
    r["verdicts_disagree"], r["verdicts_unknown"], r["not_sc"]))
PY
done
mv "$tmp/md" "$out"
cat "$out"
