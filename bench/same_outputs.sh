#!/bin/sh
# Two builds of vsc, the same bytes: `vsc check` of each build (exit
# status, standard output and error) on vsc gen families and on traces
# made to stop the parser's fast paths (lines of threads in turn,
# timestamps, RMWs, negative and long values, long names, comments), each
# with several option sets. For a change that must not change any answer
# (the parser's speed, the greedy run's tables): prints each cell that
# differs and ends with the count; exit 1 when some differ.
#
#   bench/same_outputs.sh VSC_BEFORE VSC_AFTER [EVENTS]   (default 200000)
set -u
before=$1 after=$2 n=${3:-200000}
tmp=$(mktemp -d /tmp/vsc-same.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# The traces: NAME and vsc gen sc options (8 threads, 64 variables, -p 3)
gen() {
	"$after" gen sc --threads 8 --total "$n" --vars 64 -p 3 --seed 1 "$@" > "$tmp/t.vsc"
}
make_trace() { # NAME
	case $1 in
	1-writer) gen --writers 1 ;;
	1-writer-stale) gen --writers 1 --stale 1 ;;
	1-writer-interleaved) gen --writers 1 --order interleaved ;;
	1-writer-timestamps) gen --writers 1 --timestamps ;;
	1-writer-4-values) gen --writers 1 --values 4 ;;
	1-writer-init) gen --writers 1 --init mix ;;
	2-writer) gen --writers 2 ;;
	rmw) gen --writers 0 --rmw 0.3 ;;
	# one line in 7 made negative, one in 11 a value of 7 to 9 digits, one
	# in 13 a name of 9 bytes, a comment every 17 lines
	mixed) gen --writers 1
		awk '/^#/ || NF < 4 { print; next }
			NR % 7 == 0 { $4 = -$4 } NR % 11 == 0 { $4 = $4 * 1000 + 7 }
			NR % 13 == 0 { $3 = $3 "abcdefgh" } { print }
			NR % 17 == 0 { print "# note" }' "$tmp/t.vsc" > "$tmp/m.vsc"
		mv "$tmp/m.vsc" "$tmp/t.vsc" ;;
	esac
}

differ=0 cells=0
for trace in 1-writer 1-writer-stale 1-writer-interleaved 1-writer-timestamps \
	1-writer-4-values 1-writer-init 2-writer rmw mixed; do
	make_trace "$trace"
	for opts in "-p 3" "-p 3 --witness" "-p 3 --json --witness" "--min" "-p 0" \
		"--min --witness --explain"; do
		# shellcheck disable=SC2086 # opts is a list of words
		"$before" check $opts --timeout 60 "$tmp/t.vsc" > "$tmp/a" 2>&1
		echo "status $?" >> "$tmp/a"
		# shellcheck disable=SC2086
		"$after" check $opts --timeout 60 "$tmp/t.vsc" > "$tmp/b" 2>&1
		echo "status $?" >> "$tmp/b"
		cells=$((cells + 1))
		# the times in the statistics of --json differ from run to run
		sed -i 's/"[a-z_]*_s": *[0-9.e+-]*//g' "$tmp/a" "$tmp/b"
		if ! cmp -s "$tmp/a" "$tmp/b"; then
			differ=$((differ + 1))
			echo "DIFFERS: $trace, vsc check $opts"
			diff "$tmp/a" "$tmp/b" | head -5
		fi
	done
done
echo "$differ of $cells cells differ ($n events)"
[ "$differ" = 0 ]
