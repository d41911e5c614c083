#!/bin/sh
# Explanation benchmark: how long `vsc check --explain` takes next to the
# plain verdict, and how big the core is, on generated traces with one
# injected violation (10^5 ... 10^7 events: a stale read, a store-buffering
# pair, and a lost update), on the relaxed
# SPSC ring recorded with vsc record (as root), and on lab files of many
# segments (--summary --explain against --summary). Each core is also
# written with --core-out and decided again: it must be inconsistent.
# Writes bench/results/explain.md (BENCH_QUICK=1: explain-quick.md).
#
#   bench/explain.sh [BUILD]     BENCH_QUICK=1  up to 10^5 events, 20k segments
#                                BENCH_TIMEOUT=S   per command (default 120)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
vsc=$build/vsc
quick=${BENCH_QUICK:-0}
limit=${BENCH_TIMEOUT:-120}
[ -x "$vsc" ] || { echo "bench/explain.sh: build $vsc first (make)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/vsc-bench-explain.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$top/bench/results"
if [ "$quick" = 1 ]; then
	sizes="100000"; segments="20000"; out=$top/bench/results/explain-quick.md
else
	sizes="100000 1000000 10000000"; segments="20000 200000"; out=$top/bench/results/explain.md
fi

# seconds CMD...: "WALL CPU" of CMD (CPU: user + system, which the load
# of other jobs inflates less than the wall time); stdout to $tmp/out,
# killed after $limit s
seconds() {
	python3 - "$limit" "$tmp/out" "$tmp/err" "$@" <<'PY'
import resource, subprocess, sys, time
limit, out, err, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
start = time.monotonic()
try:
    subprocess.run(cmd, stdout=open(out, "w"), stderr=open(err, "w"), timeout=limit)
    wall = "%.2f" % (time.monotonic() - start)
except subprocess.TimeoutExpired:
    wall = ">%g" % limit
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, "%.2f" % (r.ru_utime + r.ru_stime))
PY
}

# core_facts JSON: "core events | cycle steps | minimal"
core_facts() {
	python3 - "$1" <<'PY'
import json, sys
try:
    o = json.loads(open(sys.argv[1]).read())
    print("%d | %d | %s" % (len(o["core"]), len(o["cycle"]), "yes" if o["core_minimal"] else "no"))
except Exception as e:
    print("- | - | - (%s)" % type(e).__name__)
PY
}

# measure FAMILY EVENTS CHECK-OPTIONS: one table row for $tmp/t.vsc
measure() {
	fam=$1 n=$2 opts=$3
	rm -f "$tmp/core.vsc" # a run killed before writing one must not find the last
	# shellcheck disable=SC2086
	set -- $(seconds "$vsc" check $opts "$tmp/t.vsc")
	verdict_s=$1 verdict_cpu=$2
	verdict=$(head -n 1 "$tmp/out")
	# shellcheck disable=SC2086
	set -- $(seconds "$vsc" check $opts --explain --json --core-out "$tmp/core.vsc" "$tmp/t.vsc")
	explain_s=$1 explain_cpu=$2
	cp "$tmp/out" "$tmp/ex.json"
	facts=$(core_facts "$tmp/ex.json")
	core_verdict=$("$vsc" check "$tmp/core.vsc" 2>/dev/null | head -n 1)
	[ "$fam" != sb-pair ] || core_verdict="$core_verdict, $(grep -c '^T[01] [wr] sb[xy] ' "$tmp/core.vsc") of 4 injected"
	ratio=$(echo "$explain_cpu $verdict_cpu" | awk '$1 ~ /^[0-9.]+$/ && $2 > 0 {printf "%.1f", $1 / $2; exit} {print "-"}')
	echo "| $fam | $n | $verdict | $verdict_s | $verdict_cpu | $explain_s | $explain_cpu | $ratio | $facts | $core_verdict |" | tee -a "$tmp/table"
}

row() { # family gen-options check-options
	for n in $sizes; do
		# shellcheck disable=SC2086
		"$vsc" gen sc --total "$n" $2 --stale 1 --seed 7 -o "$tmp/t.vsc" || continue
		measure "$1" "$n" "$3"
	done
}

# A store-buffering pair injected in the middle of T0 and T1 of a 1-Writer
# trace that is SC otherwise: T0 writes sbx then reads sby = 0, T1 writes
# sby then reads sbx = 0 (two variables of their own, initially 0).
sb_inject() {
	python3 - "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
first = next(i for i, l in enumerate(lines) if l[:1] == "T")
def middle(t):
    own = [i for i, l in enumerate(lines) if l.split(" ", 1)[0] == t]
    return own[len(own) // 2]
a, b = middle("T0"), middle("T1")
for at, ops in sorted([(a, ["T0 w sbx 1", "T0 r sby 0"]), (b, ["T1 w sby 1", "T1 r sbx 0"])], reverse=True):
    lines[at:at] = ops
lines[first:first] = ["init sbx 0", "init sby 0"]
open(sys.argv[1], "w").write("\n".join(lines))
PY
}

sb_row() {
	for n in $sizes; do
		"$vsc" gen sc --total "$n" --threads 8 --vars 64 --writers 1 -p 3 --seed 5 -o "$tmp/t.vsc" || continue
		sb_inject "$tmp/t.vsc"
		measure sb-pair "$n" ""
	done
}

lost_update_row() {
	for n in $sizes; do
		"$vsc" gen sc --total "$n" --rmw 0.3 --seed 3 -o "$tmp/t.vsc" || continue
		python3 "$top/tests/cli/lost_update.py" "$tmp/t.vsc"
		measure lost-update "$n" ""
	done
}

# The relaxed SPSC ring of tests/targets/explain_ring.c, recorded (root and
# eBPF only; its length varies with how long each side spins).
ring_row() {
	ring=$build/targets/explain_ring
	[ "$(id -u)" = 0 ] && [ -x "$ring" ] || { echo "(ring: needs root and $ring)" >&2; return; }
	for items in 1000 20000; do
		"$vsc" record -o "$tmp/t.vsc" -- "$ring" "$items" 2> /dev/null || continue
		n=$(grep -c '^[0-9]' "$tmp/t.vsc")
		measure "recorded-ring-$items" "$n" ""
	done
}

lab_file() { # SEGMENTS FILE: store buffering, every 7th iteration the TSO outcome
	awk -v n="$1" 'BEGIN { print "init x 0"; print "init y 0";
		for (i = 0; i < n; i++) { print "segment " i; r = (i % 7 == 3) ? 0 : 1;
			print "T1 w x 1"; print "T1 r y 0"; print "T2 w y 1"; print "T2 r x " r } }' > "$2"
}

{
	echo "## Explanations (bench/explain.sh)"
	echo
	echo "- machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -m)"
	echo "- commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%d)"
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine inflate wall times)"
	echo "- generated: \`vsc gen sc --total N ... --stale 1 --seed 7\`; sb-pair: \`vsc gen sc --total N --threads 8 --vars 64 --writers 1 -p 3 --seed 5\` with a store-buffering pair injected in the middle of T0 and T1 (two variables of its own); lost-update: \`vsc gen sc --total N --rmw 0.3 --seed 3\` with a second RMW of one value injected (two RMWs read one write); recorded-ring: tests/targets/explain_ring.c recorded with \`vsc record\`"
	echo "- \`verdict\`: \`vsc check\`; \`explain\`: \`vsc check --explain --json --core-out\` (the whole run: parse, verdict, explanation); s: wall, cpu: user + system seconds; explain/verdict: of the cpu times; \`core check\`: \`vsc check\` on the core file"
	echo
	echo "| family | events | verdict | verdict s | verdict cpu | explain s | explain cpu | explain/verdict | core events | cycle steps | 1-minimal | core check |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$tmp/head"
cat "$tmp/head"
: > "$tmp/table"
row sc1w "--threads 8 --vars 64 --writers 1 -p 3" "-p 3"
row sc1w-nobound "--threads 8 --vars 64 --writers 1 -p 3" ""
row sc1w-2threads "--threads 2 --vars 4 --writers 1 -p 3" ""
sb_row
lost_update_row
ring_row
{
	echo
	echo "Lab files: store buffering, one segment in 7 shows the TSO outcome."
	echo
	echo "| segments | inconsistent | --summary s | cpu | --summary --explain s | cpu | cores in JSON |"
	echo "|---|---|---|---|---|---|---|"
} >> "$tmp/table"
for s in $segments; do
	lab_file "$s" "$tmp/lab.vsc"
	sum_s=$(seconds "$vsc" check --summary "$tmp/lab.vsc" | tr ' ' '|')
	ex_s=$(seconds "$vsc" check --summary --explain --json "$tmp/lab.vsc" | tr ' ' '|')
	cores=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sum(1 for x in s["inconsistent"] if len(x.get("core", [])) == 4))' "$tmp/out" 2>/dev/null || echo -)
	echo "| $s | $(( (s + 3) / 7 )) | $sum_s | $ex_s | $cores |" | tee -a "$tmp/table"
done
cat "$tmp/head" "$tmp/table" > "$out"
echo "bench: table in ${out#"$top"/}"
