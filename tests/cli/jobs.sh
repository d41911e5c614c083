#!/bin/sh
# --jobs inside one execution: a trace made of independent parts (vsc gen
# traces over disjoint threads and variables, gen/parts.awk) decided with
# -j 1 and -j 4 prints the same bytes (verdict, preemptions, witness, JSON,
# VSC_STATS counts) and exits the same; each witness is replayed by
# gen/replay.awk (independent of the solvers) with the preemptions printed.
# Also: several files with -j (files at once, parts with what is left), and
# a part that is inconsistent among heavy ones.
set -u
vsc=${1:?usage: jobs.sh PATH-TO-VSC}
case $vsc in /*) ;; *) vsc=$PWD/$vsc ;; esac
dir=$(cd "$(dirname "$0")" && pwd)/gen
tmp=$(mktemp -d /tmp/vsc-jobs-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }

# part FILE NAME GEN-ARGS...: append a vsc gen trace as part NAME
part() {
	file=$1 name=$2
	shift 2
	"$vsc" gen "$@" | awk -v p="${name}_" -f "$dir/parts.awk" >> "$file"
}

# 4 heavy parts (60,000 events each, several writers, RMWs, init ? and
# known), a token ring (least 5) and a few tiny ones, 250,000 events in all
echo "vsc 1" > "$tmp/big.vsc"
for k in 1 2 3 4; do
	part "$tmp/big.vsc" "p$k" sc --threads 4 --total 60000 --vars 12 --writers 2 --rmw 0.2 \
		--init mix -p 3 --seed "$k"
done
part "$tmp/big.vsc" ring ring --threads 3 --passes 7
for k in 1 2 3; do
	part "$tmp/big.vsc" "s$k" sc --threads 2 --events 3 --vars 1 --init unknown -p 1 --seed "$k"
done

# same FILE ARGS...: -j 1 and -j 4 alike but for the time JSON reports;
# leaves the -j 1 output in $tmp/1
same() {
	file=$1
	shift
	for j in 1 4; do
		VSC_STATS=1 "$vsc" check -j $j "$@" "$file" > "$tmp/raw" 2> "$tmp/$j.err"
		echo $? > "$tmp/$j.status"
		sed 's/"time_s":[^,}]*//' "$tmp/raw" > "$tmp/$j"
	done
	s1=$(cat "$tmp/1.status") s4=$(cat "$tmp/4.status")
	if [ "$s1" = "$s4" ] && cmp -s "$tmp/1" "$tmp/4" && cmp -s "$tmp/1.err" "$tmp/4.err"; then
		ok
	else
		no "-j 1 and -j 4 differ on $* ($(basename "$file"): exit $s1 and $s4)"
	fi
}

# replayed FILE: the witness in $tmp/1 is an SC interleaving of FILE with
# the preemptions printed
replayed() {
	{
		grep '^init ' "$1"
		sed -n 's/^  \([^[]*\)\[[0-9]*\] /\1 /p' "$tmp/1"
	} > "$tmp/w.vsc"
	got=$(awk -f "$dir/replay.awk" "$tmp/w.vsc" "$tmp/w.vsc")
	said=$(sed -n 's/^preemptions: \([0-9]*\).*/\1/p' "$tmp/1")
	[ -n "$said" ] && [ "$got" = "$said" ] && ok || no "witness replay: $got, printed $said"
}

for args in "" "--witness" "--min --witness" "-p 17 --witness" "-p 4 --min" "-p 3" \
	    "--json --min --witness" "--summary"; do
	# shellcheck disable=SC2086
	same "$tmp/big.vsc" $args
	case $args in *--witness*) case $args in *--json*) ;; *) replayed "$tmp/big.vsc" ;; esac ;; esac
done
grep -q "parts" "$tmp/1.err" && ok || no "VSC_STATS names no parts"

# the least of the ring part (5) is in every least; -p below the sum fails
"$vsc" check -j 4 --min "$tmp/big.vsc" > "$tmp/min"
least=$(sed -n 's/^preemptions: \([0-9]*\).*/\1/p' "$tmp/min")
[ -n "$least" ] && [ "$least" -ge 5 ] && ok || no "--min: least '$least'"
"$vsc" check -j 4 -p "$((least - 1))" "$tmp/big.vsc" > /dev/null
[ $? = 1 ] && ok || no "-p below the least ($((least - 1))) is not inconsistent"
"$vsc" check -j 4 -p "$least" "$tmp/big.vsc" > /dev/null
[ $? = 0 ] && ok || no "-p $least is not consistent"

# one part with a stale read among the heavy ones: inconsistent either way
cp "$tmp/big.vsc" "$tmp/stale.vsc"
part "$tmp/stale.vsc" stale sc --threads 3 --events 20 --vars 2 --writers 1 -p 2 --stale 1 --seed 5
same "$tmp/stale.vsc" --min
[ "$s1" = 1 ] && ok || no "stale part: exit $s1, not inconsistent"

# several files: -j 4 over 2 files (2 workers, 2 threads for each one's
# parts) answers as -j 1
printf 'vsc 1\n' > "$tmp/small.vsc"
part "$tmp/small.vsc" a sc --threads 3 --events 30 --vars 2 -p 2 --seed 9
part "$tmp/small.vsc" b sc --threads 3 --events 30 --vars 2 -p 2 --seed 10
for j in 1 4; do
	"$vsc" check -j $j --min --witness "$tmp/big.vsc" "$tmp/small.vsc" > "$tmp/two.$j" 2>&1
	echo "exit $?" >> "$tmp/two.$j"
done
cmp -s "$tmp/two.1" "$tmp/two.4" && ok || no "two files: -j 1 and -j 4 differ"

echo "jobs: $pass passed, $fail failed"
[ $fail = 0 ]
