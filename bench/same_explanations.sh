#!/bin/sh
# Two builds of vsc, the same explanations: `vsc check` of each build (exit
# status, standard output and error, and the files --svg, --core-out and
# --html write) with --explain and every output that explains, on the
# traces of tests/cli, on random programs (most are not SC), on vsc gen
# families with injected violations and on generated relaxed SPSC rings
# (tests/cli/gen/spsc_ring.py). For a change that must not change any answer (the
# memory the explanation takes): prints each cell that differs and ends
# with the count; exit 1 when some differ. A cell whose explanation a limit
# stopped (`--timeout`, the shrinking's own bounds: the text says so) is
# counted apart, not compared: what it prints depends on the time it had
# (tests/cli/sat_min_unsat.vsc: cores of 104 and 107 events, one build).
#
#   bench/same_explanations.sh VSC_BEFORE VSC_AFTER [RANDOM]  (default 300
#                                                             random programs)
#                              SAME_TIMEOUT=S (default 20)
set -u
before=$1 after=$2 nrandom=${3:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/vsc-same-explain.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
mkdir "$tmp/traces"

# the traces
for f in "$top"/tests/cli/*.vsc; do
	cp "$f" "$tmp/traces/cli-$(basename "$f")"
done
i=0
while [ $i -lt "$nrandom" ]; do
	"$after" gen random --threads $((2 + i % 3)) --events $((3 + i % 6)) --vars $((1 + i % 3)) \
		--values $((2 + i % 2)) --rmw "0.$((i % 3))" --seed $i -o "$tmp/traces/random-$i.vsc"
	i=$((i + 1))
done
gen() { # NAME EVENTS OPTIONS...
	name=$1 n=$2
	shift 2
	"$after" gen sc --threads 4 --total "$n" --vars 8 -p 3 --seed 1 "$@" \
		-o "$tmp/traces/$name-$n.vsc"
}
for n in 300 20000; do
	gen stale-1w "$n" --writers 1 --stale 1
	gen stale-2w-4v "$n" --writers 2 --values 4 --stale 1
	gen stale-rmw "$n" --writers 0 --rmw 0.3 --stale 1
	gen stale-init "$n" --writers 1 --init unknown --stale 2
	gen stale-times "$n" --writers 2 --stale 1 --timestamps
done
for seed in 1 2 3; do
	for sb in 0 1 4; do
		python3 "$top/tests/cli/gen/spsc_ring.py" $((30000 * seed)) 50 $sb $seed \
			> "$tmp/traces/spsc-$seed-$sb.vsc"
	done
done
# a lab run of segments
awk 'BEGIN { print "init x 0\ninit y 0"
	     for (s = 0; s < 40; s++) {
		a = s % 2; b = int(s / 2) % 2
		printf "segment %d\nT1 w x 1\nT1 r y %d\nT2 w y 1\nT2 r x %d\n", s, a, b } }' \
	> "$tmp/traces/lab-sb.vsc"

limited_by() {
	grep -q 'limit stopped\|not minimal\|"core_minimal":false\|time limit came first\|not known to be a proof\|^unknown\|"verdict":"unknown' "$1"
}
differ=0 cells=0 limited=0
for t in "$tmp"/traces/*.vsc; do
	stopped=0 # its --explain was stopped by a limit: so are its pictures
	for opts in "--explain" "--explain --json" "-p 0 --explain" "-p 1 --explain --json" \
		"--svg" "--core-out" "--html" "--summary --explain" "--summary --explain --json"; do
		if [ $stopped = 1 ]; then
			cells=$((cells + 1)) limited=$((limited + 1))
			continue
		fi
		for side in a b; do
			[ $side = a ] && vsc=$before || vsc=$after
			rm -rf "$tmp/out" && mkdir "$tmp/out"
			case $opts in
			--svg | --core-out | --html) set -- $opts "$tmp/out/file" ;;
			*) set -- $opts ;; # opts is a list of words
			esac
			(cd "$tmp/out" && "$vsc" check "$@" --timeout "${SAME_TIMEOUT:-20}" "$t" > stdout 2> stderr
			 echo "status $?" >> stdout)
			# the times in the statistics of --json differ from run to run
			sed -i 's/"[a-z_]*_s": *[0-9.e+-]*//g' "$tmp/out/stdout"
			for f in "$tmp"/out/*; do
				printf '== %s\n' "$(basename "$f")"
				cat "$f"
			done > "$tmp/$side"
		done
		cells=$((cells + 1))
		if limited_by "$tmp/a" || limited_by "$tmp/b"; then
			limited=$((limited + 1))
			[ "$opts" = --explain ] && stopped=1
		elif ! cmp -s "$tmp/a" "$tmp/b"; then
			differ=$((differ + 1))
			echo "DIFFERS: $(basename "$t"), vsc check $opts"
			diff "$tmp/a" "$tmp/b" | head -5
		fi
	done
done
echo "$differ of $cells cells differ ($limited stopped by a limit, not compared)"
[ "$differ" = 0 ]
