#!/bin/sh
# Every output at length: `vsc check` with each option a user asks for
# (plain, --witness, --json, --min, --min --json, --svg, --html, -j 2,
# --summary, --explain, --core-out) on traces of every family at 10^6 and 10^7 events, and on
# recorded traces given on the command line (a spin lock, an SPSC ring, a
# seqlock, Peterson's lock, a lab run of many segments) and on generated
# relaxed SPSC rings of that shape (tests/cli/gen/spsc_ring.py: spins of
# identical reads, 4 store bufferings of head and tail). Per cell: exit
# status, CPU (user + system), peak RSS, output bytes, and whether the
# output is usable: a text witness is replayed by tests/cli/gen/replay.awk
# (independent of the solvers; per segment for lab runs) to the
# preemptions printed, JSON parses, pictures stay few and small (and are
# well-formed XML), -j 2 prints what -j 1 prints, every inconsistent
# execution is explained, the cores --core-out writes are inconsistent. Writes
# bench/results/outputs.md (BENCH_QUICK=1: 10^6 events only,
# outputs-quick.md).
#
#   bench/outputs.sh [BUILD] [NAME=TRACE ...]   BENCH_TIMEOUT=S (default 120)
#                                               BENCH_MEM_MB=M (default 12288)
#                                               BENCH_SIZES="N ..." (events)
#                                               BENCH_FAMILIES="F ..." (below)
#                                               BENCH_OPTIONS="KEY ..." (below)
set -u
# shellcheck source=bench/time_cmd.sh
. "$(dirname "$0")/time_cmd.sh"
bench_start outputs.sh "${1:-}"
[ $# -gt 0 ] && shift
quick=${BENCH_QUICK:-0}
limit=${BENCH_TIMEOUT:-120}
mem_mb=${BENCH_MEM_MB:-12288} # vsc's own cap is half the memory; this one guards the machine
replay=$top/tests/cli/gen/replay.awk
out=$top/bench/results/outputs$([ "$quick" = 1 ] && echo -quick).md
options=${BENCH_OPTIONS:-plain witness json min min-json svg html j2 summary explain core-out}

# The generated families (vsc gen sc, 8 threads, 64 variables, -p 3;
# many threads: a pool of 10^5 short threads on 16 variables, 10 events
# each when the trace is smaller).
gen_family() { # NAME EVENTS FILE
	case $1 in
	spsc-ring) python3 "$top/tests/cli/gen/spsc_ring.py" "$2" 1000 4 1 > "$3"
		return ;;
	1-writer) set -- "$@" --writers 1 ;;
	2-writer) set -- "$@" --writers 2 ;;
	rmw) set -- "$@" --writers 0 --rmw 0.3 ;;
	few-values) set -- "$@" --writers 2 --values 4 ;;
	threads) "$vsc" gen sc --threads $(($2 / 10 < 100000 ? $2 / 10 : 100000)) --total "$2" \
		--vars 16 -p 3 --seed 1 -o "$3"
		return ;;
	esac
	f=$3 n=$2
	shift 3
	"$vsc" gen sc --threads 8 --total "$n" --vars 64 -p 3 --seed 1 "$@" -o "$f"
}

# usable KEY TRACE DIR: is what the cell left in DIR usable?
usable() {
	case $1 in
	witness) witness_replays "$2" "$3" ;;
	json | min-json)
		python3 -c 'import json, sys
[json.loads(l) for l in open(sys.argv[1])]' "$3/out" 2> /dev/null && echo "parses" ||
			echo "BAD JSON" ;;
	svg) pictures "$3" ;;
	html) [ -s "$3/page.html" ] && echo "$(($(wc -c < "$3/page.html") / 1024)) KiB page" ||
		echo "NO PAGE" ;;
	j2) cmp -s "$3/out" "$tmp/plain.out" && echo "same as -j 1" || echo "DIFFERS from -j 1" ;;
	explain) explained "$3" ;;
	core-out) cores "$3" ;;
	*) echo "-" ;;
	esac
}

# witness_replays TRACE DIR: the printed witness replays to the preemptions
# printed (each segment's with the segment's own init lines)
witness_replays() {
	if grep -q '^segments: ' "$2/out"; then
		awk 'FNR == NR { if ($1 == "segment") s = $2
				 else if ($1 == "init") { if (s == "") print; else init[s] = init[s] $0 "\n" }
				 next }
		     /^segment .*: consistent$/ { s = $2; sub(/:$/, "", s); printf "segment %s\n%s", s, init[s] }
		     /^    [^ ]*\[[0-9]*\] / { sub(/^    /, ""); sub(/\[[0-9]*\]/, ""); print }' \
			"$1" "$2/out" > "$tmp/w.vsc"
		awk '/^segment .*: consistent$/ { s = $2; sub(/:$/, "", s) }
		     /^  preemptions: / && s != "" { print s, $2; s = "" }' "$2/out" > "$tmp/said"
		awk -v per_segment=1 -f "$replay" "$tmp/w.vsc" "$tmp/w.vsc" > "$tmp/got"
		if [ -s "$tmp/said" ] && cmp -s "$tmp/said" "$tmp/got"; then
			echo "replays ($(wc -l < "$tmp/said") segments)"
		else
			echo "DOES NOT REPLAY"
		fi
	elif grep -q '^witness:' "$2/out"; then
		{
			grep '^init ' "$1"
			sed -n 's/^  \([^[]*\)\[[0-9]*\] /\1 /p' "$2/out"
		} > "$tmp/w.vsc"
		got=$(awk -f "$replay" "$tmp/w.vsc" "$tmp/w.vsc" | head -1)
		said=$(sed -n 's/^preemptions: \([0-9]*\).*/\1/p' "$2/out")
		[ -n "$said" ] && [ "$got" = "$said" ] && echo "replays ($said)" ||
			echo "DOES NOT REPLAY ($got, printed $said)"
	else
		echo "no witness"
	fi
	rm -f "$tmp/w.vsc"
}

# explained DIR: an explanation for every inconsistent execution
explained() {
	said=$(sed -n 's/^segments: [0-9]*, inconsistent: //p' "$1/out")
	[ -z "$said" ] && { head -1 "$1/out" | grep -qx inconsistent && said=1 || said=0; }
	told=$(grep -c '^ *core: ' "$1/out")
	[ "$said" = "$told" ] && echo "$told explained" || echo "EXPLAINED $told OF $said"
}

# cores DIR: the cores written are a trace vsc decides inconsistent, and
# one core of at most 24 events is by tests/cli/sc_brute.py too (every
# interleaving walked, apart from the solvers)
cores() {
	n=$(grep -c '^# core of ' "$1/core.vsc" 2> /dev/null)
	if [ "${n:-0}" = 0 ]; then
		echo "no core"
	elif "$vsc" check "$1/core.vsc" > /dev/null 2>&1; [ $? = 1 ]; then
		brute=$(python3 "$top/tests/cli/sc_brute.py" "$1/core.vsc" 2> /dev/null)
		case $n,$brute in
		1,inconsistent) echo "1 core, inconsistent (and by sc_brute.py)" ;;
		1,consistent) echo "1 CORE, CONSISTENT BY sc_brute.py" ;;
		*) echo "$n cores, inconsistent" ;;
		esac
	else
		echo "$n CORES, NOT INCONSISTENT"
	fi
}

# pictures DIR: how many, the biggest, well-formed
pictures() {
	n=$(find "$1" -name '*.svg' | wc -l)
	big=$(find "$1" -name '*.svg' -printf '%s %p\n' | sort -n | tail -1)
	xml=well-formed
	[ -n "$big" ] && ! xmllint --noout "${big#* }" 2> /dev/null && xml="NOT WELL-FORMED"
	echo "$n pictures, largest $((${big%% *} / 1024)) KiB, $xml"
}

# cell NAME TRACE KEY: one row
cell() {
	d=$tmp/cell
	rm -rf "$d"
	mkdir -p "$d"
	case $3 in
	plain) set -- "$1" "$2" "$3" ;;
	witness) set -- "$1" "$2" "$3" --witness ;;
	json) set -- "$1" "$2" "$3" --json ;;
	min) set -- "$1" "$2" "$3" --min ;;
	min-json) set -- "$1" "$2" "$3" --min --json ;;
	svg) set -- "$1" "$2" "$3" --svg "$d/pic.svg" ;;
	html) set -- "$1" "$2" "$3" --html "$d/page.html" ;;
	j2) set -- "$1" "$2" "$3" -j 2 ;;
	summary) set -- "$1" "$2" "$3" --summary ;;
	explain) set -- "$1" "$2" "$3" --explain ;;
	core-out) set -- "$1" "$2" "$3" --core-out "$d/core.vsc" ;;
	esac
	name=$1 trace=$2 key=$3
	shift 3
	time_cmd "$d/out" $((limit + 5)) "$vsc" check --timeout "$limit" "$@" "$trace"
	[ "$key" = plain ] && cp "$d/out" "$tmp/plain.out"
	verdict=$(head -c 200 "$d/out" | head -1 | sed 's/^{.*"verdict":"\([a-z]*\)".*/\1/' | cut -c1-14)
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$key" "$rc" "$cpu_s" \
		"$((rss_kb / 1024))" "$(wc -c < "$d/out")" "$verdict" "$(usable "$key" "$trace" "$d")" |
		tee -a "$out"
	rm -rf "$d"
}

{
	echo "# Every output at length ($(date -u +%Y-%m-%d), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null))"
	echo
	echo "$(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);"
	echo "\`vsc check --timeout $limit\`, CPU = user + system s, RSS = peak MB, out = stdout bytes."
	echo
	echo "| trace | option | exit | CPU s | RSS MB | out | verdict | usable |"
	echo "|---|---|---:|---:|---:|---:|---|---|"
} > "$out"
sizes=${BENCH_SIZES:-1000000 10000000}
[ "$quick" = 1 ] && sizes=${BENCH_SIZES:-1000000}
for n in $sizes; do
	for family in ${BENCH_FAMILIES:-1-writer 2-writer rmw few-values threads spsc-ring}; do
		gen_family $family "$n" "$tmp/t.vsc" > /dev/null || continue
		for key in $options; do
			cell "$family $n" "$tmp/t.vsc" "$key"
		done
	done
done
for arg in "$@"; do # recorded traces: NAME=FILE
	for key in $options; do
		cell "${arg%%=*}" "${arg#*=}" "$key"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
