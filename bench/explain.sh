#!/bin/sh
# Explanation benchmark: how long `vsc check --explain` takes next to the
# plain verdict, and how big the core is, on generated traces with one
# injected violation (10^5 ... 10^7 events), and on lab files of many
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

# seconds CMD...: wall time of CMD (stdout to $tmp/out), killed after $limit s
seconds() {
	start=$(date +%s.%N)
	timeout "$limit" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	end=$(date +%s.%N)
	if [ $rc -eq 124 ]; then echo ">$limit"; else echo "$start $end" | awk '{printf "%.2f", $2 - $1}'; fi
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

row() { # family gen-options check-options
	fam=$1 gen=$2 opts=$3
	for n in $sizes; do
		# shellcheck disable=SC2086
		"$vsc" gen sc --total "$n" $gen --stale 1 --seed 7 -o "$tmp/t.vsc" || continue
		# shellcheck disable=SC2086
		verdict_s=$(seconds "$vsc" check $opts "$tmp/t.vsc")
		verdict=$(head -n 1 "$tmp/out")
		# shellcheck disable=SC2086
		explain_s=$(seconds "$vsc" check $opts --explain --json --core-out "$tmp/core.vsc" "$tmp/t.vsc")
		cp "$tmp/out" "$tmp/ex.json"
		facts=$(core_facts "$tmp/ex.json")
		core_verdict=$("$vsc" check "$tmp/core.vsc" 2>/dev/null | head -n 1)
		ratio=$(echo "$explain_s $verdict_s" | awk '$1 ~ /^[0-9.]+$/ && $2 > 0 {printf "%.1f", $1 / $2; exit} {print "-"}')
		echo "| $fam | $n | $verdict | $verdict_s | $explain_s | $ratio | $facts | $core_verdict |" | tee -a "$tmp/table"
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
	echo "- generated: \`vsc gen sc --total N ... --stale 1 --seed 7\`; \`verdict s\`: \`vsc check\`; \`explain s\`: \`vsc check --explain --json --core-out\` (the whole run: parse, verdict, explanation); \`core check\`: \`vsc check\` on the core file"
	echo
	echo "| family | events | verdict | verdict s | explain s | explain/verdict | core events | cycle steps | 1-minimal | core check |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$tmp/head"
cat "$tmp/head"
: > "$tmp/table"
row sc1w "--threads 8 --vars 64 --writers 1 -p 3" "-p 3"
row sc1w-nobound "--threads 8 --vars 64 --writers 1 -p 3" ""
row sc1w-2threads "--threads 2 --vars 4 --writers 1 -p 3" ""
{
	echo
	echo "Lab files: store buffering, one segment in 7 shows the TSO outcome."
	echo
	echo "| segments | inconsistent | --summary s | --summary --explain s | cores in JSON |"
	echo "|---|---|---|---|---|"
} >> "$tmp/table"
for s in $segments; do
	lab_file "$s" "$tmp/lab.vsc"
	sum_s=$(seconds "$vsc" check --summary "$tmp/lab.vsc")
	ex_s=$(seconds "$vsc" check --summary --explain --json "$tmp/lab.vsc")
	cores=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sum(1 for x in s["inconsistent"] if len(x.get("core", [])) == 4))' "$tmp/out" 2>/dev/null || echo -)
	echo "| $s | $(( (s + 3) / 7 )) | $sum_s | $ex_s | $cores |" | tee -a "$tmp/table"
done
cat "$tmp/head" "$tmp/table" > "$out"
echo "bench: table in ${out#"$top"/}"
