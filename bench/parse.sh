#!/bin/sh
# The parser alone (bench/parse_bench.c: vsc_trace_parse_file as `vsc
# check` calls it, repeated) on the 1-Writer family and on the peer axe's
# class at 10^6 and 10^7 events: MB/s and events/s of CPU time (median of
# the runs), peak RSS per event, and `wc -l` on the same file beside it.
# Writes bench/results/parse.md.
#
#   bench/parse.sh BENCH_BINARY [BUILD]   BENCH_RUNS=N (default 7)
set -u
bench=$1
# shellcheck source=bench/time_cmd.sh
. "$(dirname "$0")/time_cmd.sh"
bench_start parse.sh "${2:-}"
runs=${BENCH_RUNS:-7}
out=$top/bench/results/parse.md

# wc_wall FILE: the median wall seconds of $runs runs of wc -l (process
# start included; its CPU time is below the 10 ms that time(1) resolves)
wc_wall() {
	for _ in $(seq "$runs"); do
		t0=$(date +%s%N)
		wc -l "$1" > /dev/null
		t1=$(date +%s%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
	done | sort -n | sed -n "$(((runs + 1) / 2))p"
}

{
	echo "# The parser alone"
	echo
	echo "$(date -u +%Y-%m-%d), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo ?)," \
		"$(uname -m), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg) (CPU times: the load inflates them less than wall times)."
	echo "Median of $runs parses in one process (bench/parse_bench.c); wc -l: median wall time of $runs runs, process start included."
	echo
	echo "| trace (vsc gen sc --threads 8 --vars 64 -p 3 --seed 1 ...) | events | MB | parse CPU s | MB/s | M events/s | peak RSS B/event | wc -l wall s |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for n in 1000000 10000000; do
		for fam in "--writers 1" "--writers 0 --rmw 0.2 --init known"; do
			"$vsc" gen sc --threads 8 --total "$n" --vars 64 -p 3 --seed 1 $fam > "$tmp/t.vsc"
			line=$("$bench" "$tmp/t.vsc" "$runs")
			echo "$line" | awk -v fam="$fam" -v wc="$(wc_wall "$tmp/t.vsc")" '{
				for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n", fam, v["events"],
					v["mb"], v["cpu_median_s"], v["mb_per_s"], v["mevents_per_s"],
					v["rss_b_per_event"], wc
			}'
			rm -f "$tmp/t.vsc"
		done
	done
} | tee "$out"
