#!/bin/sh
# Solver benchmark: instances made by `vsc gen` (one family per row group,
# 10^3 ... 10^7 events), timed with `vsc check` (default solver), with the
# exact baseline and the paper/SAT solvers where they can finish, against
# `wc -l` on the same file. Wall time and peak RSS from /usr/bin/time.
# Writes a markdown table with the machine and commit to
# bench/results/solver.md (BENCH_QUICK=1: bench/results/solver-quick.md)
# and rebuilds bench/RESULTS.md from bench/notes.md and bench/results/.
#
#   bench/solver.sh [BUILD]        BENCH_QUICK=1     small sizes only (~1 min)
#                                  BENCH_TIMEOUT=S   per check (default 60, quick 20)
#                                  BENCH_ALT_TIMEOUT=S  exact/paper/sat (default 10, quick 5)
#                                  BENCH_ALT_MAX=N   run those up to N events (default 10000)
#                                  BENCH_MEM_MB=M    address-space cap per run (default 4096)
#                                  BENCH_FAMILIES="sc1w ring ..."  a subset
#                                                    (threads: 10^3-10^5 threads, 10^6 and
#                                                    10^7 events; quick: 10^5;
#                                                    parts: 4 independent parts,
#                                                    -j 1 and -j 2)
#                                  BENCH_OUT=NAME    table into bench/results/NAME.md
#                                                    (for a subset beside the full table)
set -u
# shellcheck source=bench/time_cmd.sh
. "$(dirname "$0")/time_cmd.sh"
bench_start solver.sh "${1:-}"
quick=${BENCH_QUICK:-0}
[ "$quick" = 0 ] || [ "$quick" = 1 ] || quick=1
if [ "$quick" = 1 ]; then
	timeout=${BENCH_TIMEOUT:-20}; alt_timeout=${BENCH_ALT_TIMEOUT:-5}
	out=$top/bench/results/solver-quick.md
else
	timeout=${BENCH_TIMEOUT:-60}; alt_timeout=${BENCH_ALT_TIMEOUT:-10}
	out=$top/bench/results/solver.md
fi
[ -n "${BENCH_OUT:-}" ] && out=$top/bench/results/$BENCH_OUT.md
alt_max=${BENCH_ALT_MAX:-10000}
mem_mb=${BENCH_MEM_MB:-4096} # address-space cap per command: the machine is shared
families=${BENCH_FAMILIES:-"sc1w sc1w-stale sc1w-4val sc1w-4val-stale scmw scmw-stale ring threads sat3 sat2 indset parts"}
skip_exact=0

# check_row FAMILY SIZE-LABEL FILE EXPECT ALT CHECK-OPTIONS...
check_row() {
	fam=$1 label=$2 file=$3 expect=$4 alt=$5; shift 5
	events=$(awk '$1 != "vsc" && $1 != "init" && $1 !~ /^#/ && NF > 2 { n++ } END { print n + 0 }' "$file")
	mb=$(wc -c < "$file" | awk '{ printf "%.1f", $1 / 1048576 }')
	time_cmd /dev/null 600 wc -l "$file"; wc_s=$secs
	time_cmd "$tmp/check" $((timeout * 2 + 30)) "$vsc" check --timeout "$timeout" "$@" "$file"
	verdict=$(head -1 "$tmp/check"); [ -n "$verdict" ] || verdict="error($rc)"
	[ $rc = 137 ] && verdict="killed (ignored --timeout)"
	if [ "$verdict" = unknown ]; then
		# vsc says "stopped by a limit (--timeout or memory)": tell which
		if awk -v a="$secs" -v t="$timeout" 'BEGIN { exit !(a >= t) }'; then
			verdict="unknown(>${timeout}s)"
		else
			verdict="unknown (stopped early: memory, cap ${mem_mb} MB)"
		fi
	fi
	case $* in *--min*) least=$(sed -n 's/^preemptions: \([0-9]*\).*/\1/p' "$tmp/check"); [ -n "$least" ] && verdict="$verdict, least $least" ;; esac
	check_s=$secs check_cpu=$cpu_s
	rss_mb=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
	bpe=$(awk -v k="$rss_kb" -v n="$events" 'BEGIN { if (n) printf "%.0f", k * 1024 / n; else print "-" }')
	ratio=$(awk -v a="$check_s" -v b="$wc_s" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }')
	exact_s=- alt_s=-
	if [ "$events" -le "$alt_max" ]; then
		[ "$skip_exact" = 1 ] || { alt_time exact "$@"; exact_s=$alt_result; }
		[ "$alt" = - ] || { alt_time "$alt" "$@"; alt_s="$alt $alt_result"; }
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		"$fam" "$label" "$events" "$mb" "$gen_s" "$wc_s" "$check_s" "$check_cpu" "$ratio" \
		"$rss_mb" "$bpe" "$exact_s" "$alt_s" "$verdict (want $expect)" | tee -a "$tmp/table"
}

# alt_time SOLVER CHECK-OPTIONS...: time another solver on $file, set $alt_result
alt_time() {
	solver=$1; shift
	time_cmd "$tmp/alt" $((alt_timeout + 10)) "$vsc" check --solver "$solver" --timeout "$alt_timeout" "$@" "$file"
	case $rc/$(head -1 "$tmp/alt") in
	0/*|1/*) alt_result=$secs ;;
	137/*) alt_result="killed >$((alt_timeout + 10))" ;;
	3/unknown) alt_result=">$alt_timeout" ;;
	*) alt_result="n/a" ;;
	esac
}

gen() { # gen FILE ARGS...: generate, set $gen_s
	f=$1; shift
	time_cmd /dev/null 3600 "$vsc" gen "$@" -o "$f"; gen_s=$secs
	[ $rc = 0 ] || { echo "bench: vsc gen $* failed" >&2; cat "$tmp/stderr" >&2; return 1; }
}

# gen_parts FILE PARTS TOTAL ARGS...: PARTS traces of vsc gen ARGS (seeds
# 1..PARTS, TOTAL events in all) over disjoint threads and variables, one
# file; sets $gen_s
gen_parts() {
	f=$1 np=$2 total=$3; shift 3
	t0=$(date +%s%N)
	echo "vsc 1" > "$f"
	k=1
	while [ $k -le "$np" ]; do
		"$vsc" gen "$@" --total $((total / np)) --seed $k |
			awk -v p="p${k}_" -f "$top/tests/cli/gen/parts.awk" >> "$f" || return 1
		k=$((k + 1))
	done
	gen_s=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
}

sizes() { # sizes FULL-LIST QUICK-LIST
	if [ "$quick" = 1 ]; then echo "$2"; else echo "$1"; fi
}

run_family() {
	case $1 in
	sc1w|sc1w-stale|sc1w-4val|sc1w-4val-stale|scmw|scmw-stale)
		extra="" want=consistent alt=paper
		case $1 in *4val*) extra="--values 4" ;; esac
		case $1 in scmw*) extra="$extra --writers 2"; alt=- ;; *) extra="$extra --writers 1" ;; esac
		case $1 in *stale) extra="$extra --stale 1"; want=inconsistent ;; esac
		case $1 in *4val-stale|scmw-stale) want="inconsistent?" ;; esac
		full="1000 10000 100000 1000000 10000000"
		case $1 in *4val*) full="1000 10000 100000 200000 1000000" ;; esac
		for n in $(sizes "$full" "1000 10000 100000"); do
			# shellcheck disable=SC2086
			gen "$tmp/t.vsc" sc --threads 8 --total $n --vars 64 -p 3 $extra --seed 1 || continue
			check_row "$1" "$n" "$tmp/t.vsc" "$want" "$alt" -p 3
		done ;;
	ring)
		for m in $(sizes "1001 10001 20001 100001" "1001 20001"); do
			gen "$tmp/t.vsc" ring --threads 2 --passes $m || continue
			check_row ring "M=$m" "$tmp/t.vsc" "least $((m - 1))" - --min
		done ;;
	threads) # many threads: K of 10^3-10^5 at n events in all
		for n in $(sizes "1000000 10000000" "100000"); do
			for k in 1000 10000 100000; do
				[ $n -ge $((2 * k)) ] || continue # room for the preemptions
				# 1-Writer, few writer threads: most threads only read
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 64 --writers 1 -p 3 --seed 1 &&
					check_row threads-sc1w "K=$k n=$n" "$tmp/t.vsc" consistent - -p 3
				# a token ring: one SC interleaving, least n/2 - K + 1
				gen "$tmp/t.vsc" ring --threads $k --passes $((n / 2)) &&
					check_row threads-ring "K=$k n=$n" "$tmp/t.vsc" "least $((n / 2 - k + 1))" - --min
				# a worker pool: short threads, every one may write all 16 variables
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 16 -p 3 --seed 1 &&
					check_row threads-pool "K=$k n=$n" "$tmp/t.vsc" consistent - -p 3
				# the same with @ts hints, as recorded traces have (the replay)
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 16 -p 3 --seed 1 --timestamps &&
					check_row threads-pool-ts "K=$k n=$n" "$tmp/t.vsc" consistent - -p 3
				# the pool's least preemptions, without hints: answered where the
				# bound along the witness meets it (docs/solvers.md, "Worker pools")
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 16 -p 3 --seed 1 &&
					check_row threads-pool-min "K=$k n=$n" "$tmp/t.vsc" "least <= 3" - --min
				# two writers per variable, most threads only read: with hints,
				# and without them
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 64 --writers 2 -p 3 --seed 1 --timestamps &&
					check_row threads-mw-ts "K=$k n=$n" "$tmp/t.vsc" consistent - -p 3
				gen "$tmp/t.vsc" sc --threads $k --total $n --vars 64 --writers 2 -p 3 --seed 1 &&
					check_row threads-mw "K=$k n=$n" "$tmp/t.vsc" consistent - -p 3
			done
		done ;;
	sat3|sat2)
		w=${1#sat}
		for v in $(sizes "10 15 20 30" "10 15 20"); do
			for seed in 1 2 3; do
				"$vsc" gen cnf --vars $v --ratio 4.26 --seed $seed -o "$tmp/f.cnf"
				gen "$tmp/t.vsc" sat --writers "$w" "$tmp/f.cnf" || continue
				# the formula's own answer, from CaDiCaL on the CNF itself
				want="sat?"
				if command -v cadical > /dev/null; then
					cadical -q "$tmp/f.cnf" > /dev/null 2>&1
					case $? in 10) want=consistent ;; 20) want=inconsistent ;; esac
				fi
				skip_exact=0; [ $seed = 1 ] || skip_exact=1 # it times out anyway
				check_row "$1" "n=$v s=$seed" "$tmp/t.vsc" "$want" sat -p 0
				skip_exact=0
			done
		done ;;
	indset)
		for vk in $(sizes "8:10:2 8:10:3 12:20:3 12:20:4" "8:10:2 8:10:3"); do
			nv=${vk%%:*} rest=${vk#*:}; ne=${rest%%:*} k=${rest#*:}
			"$vsc" gen graph --vertices $nv --edges $ne --seed 1 -o "$tmp/g.gr"
			gen "$tmp/t.vsc" indset --k $k "$tmp/g.gr" || continue
			want=$(awk -v k="$k" -f "$top/tests/cli/gen/indset_brute.awk" "$tmp/g.gr")
			case $want in yes) want=consistent ;; no) want=inconsistent ;; esac
			check_row indset "V=$nv E=$ne k=$k" "$tmp/t.vsc" "$want" - -p $((3 * k))
		done ;;
	parts) # independent parts: vsc gen traces over disjoint threads and
		# variables in one file, decided with -j 1 and -j 2 (both cores)
		for n in $(sizes "1000000 10000000" "100000"); do
			gen_parts "$tmp/t.vsc" 4 $n sc --threads 8 --vars 64 --writers 1 -p 3 &&
				for j in 1 2; do
					check_row parts-sc1w "4x$((n / 4)) -j $j" "$tmp/t.vsc" "least 12" - --min -j $j
				done
		done
		for n in $(sizes "1000000" "100000"); do
			gen_parts "$tmp/t.vsc" 4 $n sc --threads 8 --vars 64 --writers 2 --values 4 -p 3 &&
				for j in 1 2; do
					check_row parts-scmw-4val "4x$((n / 4)) -j $j" "$tmp/t.vsc" consistent - -p 12 -j $j
				done
		done ;;
	*) echo "bench: unknown family $1" >&2 ;;
	esac
}

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | head -1)
[ -n "$dirty" ] && commit="$commit (with local changes)"
commit=${BENCH_COMMIT:-$commit} # when benching a copied build
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "### Solver benchmark ($( [ "$quick" = 1 ] && echo quick || echo full ) mode)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- commit: $commit"
	echo "- machine: $(uname -a)"
	echo "- CPU: $cpu ($(nproc) online)"
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine inflate wall times)"
	echo "- memory cap: ulimit -v ${mem_mb} MB per command"
	[ -n "${BENCH_FAMILIES:-}" ] && echo "- families: $families (a subset)"
	echo "- limits: --timeout $timeout for the default solver, $alt_timeout for exact/paper/sat (run only up to $alt_max events)"
	echo
	echo "| family | size | events | MB | gen s | wc -l s | check s | check CPU s | check/wc | peak RSS MB | RSS bytes/event | exact s | paper/sat s | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$tmp/head"
cat "$tmp/head"
: > "$tmp/table"
for fam in $families; do
	run_family "$fam"
done
cat "$tmp/head" "$tmp/table" > "$out"
sh "$top/bench/assemble.sh"
echo "bench: table in ${out#"$top"/}, bench/RESULTS.md rebuilt"
