#!/bin/sh
# Places in the temporary file of witnesses, explanations and cores beyond
# 4 GiB (witness_spill.c, item_list.c keep them as 64-bit numbers). Writing
# 4 GiB of witnesses takes some 4x10^7 lab segments; instead
# VSC_SPILL_START puts the first one after a hole of 4 GiB - 1 MiB (a
# sparse file, no disk taken), so that the file crosses 2^32 after its
# first MiB: the places the records keep and the seeks back lie on both
# sides. For each answer that uses the file, on a generated lab run of N
# segments (default 40,000, a few MB of witnesses; about a quarter
# inconsistent):
#   - under a file size limit of 4 GiB (ulimit -f, 512-byte blocks) the
#     writes past 2^32 fail: exit 2 and the message (the file really
#     crosses 4 GiB, and its loss is found);
#   - without it, the report (and --core-out's FILE) is the same bytes as
#     with every execution kept whole (VSC_KEEP_EXECUTIONS=1, no file).
# Prints one line per answer and "spill offsets: P passed, F failed".
#
#   bench/spill_offsets.sh [BUILD] [N]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
vsc=$(cd "${1:-$top/build}" && pwd)/vsc
n=${2:-40000}
[ -x "$vsc" ] || { echo "bench/spill_offsets.sh: build $vsc first (make)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/vsc-spill-offsets.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# a store-buffering lab run in the recorder's form (as tests/cli/stream.sh)
awk -v n="$n" 'BEGIN {
	srand(7)
	print "vsc 1\n# events: see end of trace\n# lost events: 0\n# uncertain values: 0"
	for (i = 0; i < n; i++) {
		printf "segment %d\ninit x:%d 0\ninit y:%d 0\n", i, i, i
		printf "100 w x:%d 1 # run+0x364 (lab_sb)\n101 w y:%d 1\n", i, i
		printf "100 r y:%d %d\n101 r x:%d %d\n", i, rand() < 0.5, i, rand() < 0.5
	}
	print "# end of trace: events=" 4 * n " lost=0 uncertain=0"
}' > "$tmp/lab.vsc"

# run NAME ENV... -- ARGS: stdout (times removed), status, the cores file
run() {
	name=$1
	shift
	(cd "$tmp" && env "$@" > "$tmp/$name.out" 2> "$tmp/$name.err")
	echo $? >> "$tmp/$name.out"
	sed -i 's/"time_s":[^,}]*//g' "$tmp/$name.out"
	[ -f "$tmp/c.vsc" ] && mv "$tmp/c.vsc" "$tmp/$name.cores"
}

start=$((4294967296 - 1048576))
for opts in "--witness" "--explain" "--json --witness" "--json --explain" \
	"--summary --explain" "--core-out c.vsc" "--json --explain --core-out c.vsc"; do
	rm -f "$tmp"/*.cores
	# shellcheck disable=SC2086 # opts are words
	run whole VSC_KEEP_EXECUTIONS=1 "$vsc" check $opts lab.vsc
	# shellcheck disable=SC2086
	run far VSC_KEEP_EXECUTIONS= VSC_SPILL_START=$start "$vsc" check $opts lab.vsc
	# shellcheck disable=SC2086
	(trap '' XFSZ && ulimit -f 8388608 && cd "$tmp" &&
		VSC_SPILL_START=$start exec "$vsc" check $opts lab.vsc) > /dev/null 2> "$tmp/limit.err"
	limited=$?
	if ! grep -q 'temporary file could not be written' "$tmp/limit.err" || [ "$limited" != 2 ]; then
		fail=$((fail + 1))
		echo "FAIL $opts: under a 4 GiB file size limit exit $limited: not past 4 GiB, or its loss not found"
	elif ! cmp -s "$tmp/whole.out" "$tmp/far.out" ||
		{ [ -f "$tmp/whole.cores" ] && ! cmp -s "$tmp/whole.cores" "$tmp/far.cores"; }; then
		fail=$((fail + 1))
		echo "FAIL $opts: past 4 GiB, not the report kept whole"
	else
		pass=$((pass + 1))
		echo "ok $opts: past 4 GiB the same $(wc -c < "$tmp/far.out") bytes"
	fi
done
echo "spill offsets: $pass passed, $fail failed"
[ "$fail" = 0 ]
