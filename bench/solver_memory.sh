#!/bin/sh
# Memory and time at 10^7 events for every trace family `vsc gen` makes at
# that size: peak RSS per event of `vsc check` (the <= 64 B/event target of
# issue 14), its wall and CPU time, and `wc -l` on the same file beside it
# (wall and CPU). The sat and indset families are reductions of small
# formulas and graphs (10^3-10^5 events): they have no 10^7 form and are
# not here. Writes bench/results/solver-memory.md and rebuilds
# bench/RESULTS.md.
#
#   bench/solver_memory.sh [BUILD]   BENCH_EVENTS=N     events per trace (default 10^7)
#                                    BENCH_TIMEOUT=S    --timeout per check (default 120)
#                                    BENCH_MEM_MB=M     address-space cap (default 4096)
#                                    BENCH_FAMILIES="sc1w ..."  a subset
set -u
# shellcheck source=bench/time_cmd.sh
. "$(dirname "$0")/time_cmd.sh"
bench_start solver_memory.sh "${1:-}"
n=${BENCH_EVENTS:-10000000}
timeout=${BENCH_TIMEOUT:-120}
mem_mb=${BENCH_MEM_MB:-4096}
families=${BENCH_FAMILIES:-"sc1w sc1w-stale sc1w-4val sc1w-4val-stale sc1w-2val sc1w-2val-stale scmw scmw-stale scmw-4val scmw-4val-stale axe ring2 ring64 threads10k threads100k ring10k pool10k pool10k-ts mw10k"}
out=$top/bench/results/solver-memory.md

times_of() { # times_of A B: A / B as "Nx", or "-" when B is 0
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }'
}

# family NAME: the gen arguments and check options of a family at $n events
family() {
	sc="sc --threads 8 --total $n --vars 64 -p 3 --seed 1"
	check="-p 3"
	case $1 in
	sc1w) gen="$sc --writers 1" ;;
	sc1w-stale) gen="$sc --writers 1 --stale 1" ;;
	sc1w-4val) gen="$sc --writers 1 --values 4" ;;
	sc1w-4val-stale) gen="$sc --writers 1 --values 4 --stale 1" ;;
	sc1w-2val) gen="$sc --writers 1 --values 2" ;;
	sc1w-2val-stale) gen="$sc --writers 1 --values 2 --stale 1" ;;
	scmw) gen="$sc --writers 2" ;;
	scmw-stale) gen="$sc --writers 2 --stale 1" ;;
	scmw-4val) gen="$sc --writers 2 --values 4" ;;
	scmw-4val-stale) gen="$sc --writers 2 --values 4 --stale 1" ;;
	axe) gen="sc --threads 8 --total $n --vars 64 -p 3 --writers 0 --rmw 0.2 --init known --seed 1"
		check="" ;;
	ring2) gen="ring --threads 2 --passes $((n / 2))" check="" ;;
	ring64) gen="ring --threads 64 --passes $((n / 12)) --local 10" check="" ;;
	threads10k) gen="sc --threads 10000 --total $n --vars 64 --writers 1 -p 3 --seed 1" ;;
	threads100k) gen="sc --threads 100000 --total $n --vars 64 --writers 1 -p 3 --seed 1" ;;
	ring10k) gen="ring --threads 10000 --passes $((n / 2))" check="--min" ;;
	pool10k) gen="sc --threads 10000 --total $n --vars 16 -p 3 --seed 1" ;;
	pool10k-ts) gen="sc --threads 10000 --total $n --vars 16 -p 3 --seed 1 --timestamps" ;;
	mw10k) gen="sc --threads 10000 --total $n --vars 64 --writers 2 -p 3 --seed 1" ;;
	*) return 1 ;;
	esac
}

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "### Memory and time at $n events (bench/solver_memory.sh)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
	echo "- CPU: $cpu_model ($(nproc) online); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  (other jobs inflate wall times: compare CPU)"
	echo "- memory cap: ulimit -v $mem_mb MB; \`vsc check --timeout $timeout\`"
	echo "- wc -l: the mean of ten runs on the same file (page cache warm)"
	echo "- B/event: peak RSS of \`vsc check\` / events (the file is read into memory and freed after parsing)"
	echo
	echo "| family | gen | check options | MB | wc -l wall / CPU s | check wall / CPU s | check/wc wall / CPU | peak RSS MB | B/event | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$tmp/head"
cat "$tmp/head"
: > "$tmp/table"
for fam in $families; do
	family "$fam" || { echo "bench: unknown family $fam" >&2; continue; }
	# shellcheck disable=SC2086
	if ! "$vsc" gen $gen -o "$tmp/t.vsc" 2> "$tmp/gen.err"; then
		echo "bench: vsc gen $gen failed: $(cat "$tmp/gen.err")" >&2
		continue
	fi
	events=$(grep -c '^[^#iv]' "$tmp/t.vsc")
	mb=$(wc -c < "$tmp/t.vsc" | awk '{ printf "%.0f", $1 / 1048576 }')
	# wc -l ten times over (one run is below the timer's 10 ms resolution)
	time_cmd /dev/null 600 sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do wc -l "$0"; done' "$tmp/t.vsc"
	wc_wall=$(awk -v a="$secs" 'BEGIN { printf "%.3f", a / 10 }')
	wc_cpu=$(awk -v a="$cpu_s" 'BEGIN { printf "%.3f", a / 10 }')
	# shellcheck disable=SC2086
	time_cmd "$tmp/check" $((timeout * 2 + 30)) "$vsc" check --timeout "$timeout" $check "$tmp/t.vsc"
	verdict=$(head -1 "$tmp/check")
	[ -n "$verdict" ] || verdict="error($rc)"
	[ $rc = 137 ] && verdict="killed (ignored --timeout)"
	bpe=$(awk -v k="$rss_kb" -v e="$events" 'BEGIN { printf "%.0f", k * 1024 / e }')
	ratio="$(times_of "$secs" "$wc_wall") / $(times_of "$cpu_s" "$wc_cpu")"
	printf '| %s | `%s` | `%s` | %s | %s / %s | %s / %s | %s | %.0f | %s | %s |\n' \
		"$fam" "$gen" "${check:-(none)}" "$mb" "$wc_wall" "$wc_cpu" "$secs" "$cpu_s" "$ratio" \
		"$(awk -v k="$rss_kb" 'BEGIN { print k / 1024 }')" "$bpe" "$verdict ($events events)" |
		tee -a "$tmp/table"
	rm -f "$tmp/t.vsc"
done
cat "$tmp/head" "$tmp/table" > "$out"
sh "$top/bench/assemble.sh"
echo "bench: table in ${out#"$top"/}, bench/RESULTS.md rebuilt"
