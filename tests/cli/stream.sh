#!/bin/sh
# Lab runs decided segment by segment (docs/lab.md, "Memory") report what
# a whole-file check reports: for a recorded lab run (data/lab_sb_recorded.vsc)
# and generated ones, whole and damaged (lost events in the header, no
# end-of-trace line, the last segment cut short, cut in the middle of a
# line, a bad line), `vsc check` with and without --summary, --json,
# --explain, --accept-incomplete, --witness, --min, --svg, --html and
# --core-out prints
# the same bytes (but for the times JSON reports), draws the same pictures,
# writes the same messages and exits the same, whether
# it keeps every execution whole (VSC_KEEP_EXECUTIONS=1) or lets the
# consistent ones go, with --jobs 1 and 3. A trace that lost events or has
# no end never gets a plain verdict. --svg and --html on a lab run of
# 60,000 segments stay within an address-space cap (only what they show is
# explained and kept), and so does --explain (explanations wait in a
# temporary file). That file full is an error, never a report missing some.
# The cores of a file named with a newline are a trace vsc reads.
set -u
vsc=${1:?usage: stream.sh PATH-TO-VSC}
case $vsc in /*) ;; *) vsc=$PWD/$vsc ;; esac
data=$(cd "$(dirname "$0")" && pwd)/data
tmp=$(mktemp -d /tmp/vsc-stream-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }

# lab SEED EXECUTIONS: a store-buffering lab run in the recorder's form,
# outcomes drawn at random (both reads 0 is the inconsistent one), with a
# global init, a segment's own init, an RMW and a spin now and then
gen_lab() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		events = 0
		for (i = 0; i < n; i++) {
			r0 = rand() < 0.5; r1 = rand() < 0.5
			body[i] = sprintf("segment %d\ninit x:%d 0\ninit y:%d 0\n", i, i, i)
			if (i % 7 == 3)
				body[i] = body[i] "init z:" i " 5\n101 u z:" i " 5 6\n"
			body[i] = body[i] sprintf("100 w x:%d 1 @%d # run+0x364 (lab_sb)\n", i, 10 * i)
			body[i] = body[i] sprintf("101 w y:%d 1\n100 r y:%d %d\n", i, i, r0)
			if (i % 5 == 2)
				body[i] = body[i] sprintf("101 r x:%d %d\n", i, r1)
			body[i] = body[i] sprintf("101 r x:%d %d\n", i, r1)
			events += 4 + (i % 5 == 2) + 2 * (i % 7 == 3) - (i % 7 == 3)
		}
		print "vsc 1"
		print "# vsc trace: generated in the form of a recorded lab run"
		print "# events: " events
		print "# lost events: 0"
		print "# uncertain values: 0"
		print "init x:0 0"
		for (i = 0; i < n; i++)
			printf "%s", body[i]
		print "# end of trace: events=" events " lost=0 uncertain=0"
	}'
}

gen_lab 1 300 > "$tmp/gen1.vsc"
gen_lab 2 60 > "$tmp/gen2.vsc"
cp "$data/lab_sb_recorded.vsc" "$tmp/recorded.vsc"

# The damaged forms of each input.
for base in gen1 gen2 recorded; do
	f=$tmp/$base.vsc
	lines=$(wc -l < "$f")
	sed 's/^# lost events: 0$/# lost events: 2/' "$f" > "$tmp/$base-lost.vsc"
	sed '$d' "$f" > "$tmp/$base-notrailer.vsc"
	head -n $((lines - 3)) "$f" > "$tmp/$base-cutseg.vsc"
	head -c $(($(wc -c < "$f") * 2 / 3 + 5)) "$f" > "$tmp/$base-midline.vsc"
	awk -v at=$((lines / 2)) 'NR == at { print "100 q x:0 1" } { print }' "$f" \
		> "$tmp/$base-badline.vsc"
done

# A value marked unsure in every third segment: with --accept-incomplete
# only those segments' inconsistent verdicts are withheld, as the record
# of each execution let go says (item_list.c)
awk '/^segment / { seg = $2 }
     seg % 3 == 0 && /# run\+0x364/ { sub(/\(lab_sb\)/, "(lab_sb, value unsure)") }
     { print }' "$tmp/gen1.vsc" > "$tmp/gen1-unsure.vsc"

# More than --svg's 100 pictures and --html's 50 executions inconsistent
# (about a quarter of 600): only the first few are explained and kept, the
# others let go (check_stream.c), whole or with its verdicts withheld.
gen_lab 3 600 > "$tmp/gen3.vsc"
sed 's/^# lost events: 0$/# lost events: 2/' "$tmp/gen3.vsc" > "$tmp/gen3-lost.vsc"

# run NAME ENV... -- ARGS...: stdout (times removed), stderr and status;
# the pictures and the page (options with @ write them to $wd/NAME.pics)
wd=$tmp
run() {
	out=$1
	shift
	rm -rf "$wd/$out.pics"
	mkdir "$wd/$out.pics"
	(cd "$wd/$out.pics" && env "$@") > "$wd/raw" 2> "$wd/$out.err"
	echo $? > "$wd/$out.status"
	sed 's/"time_s":[^,}]*//g' "$wd/raw" > "$wd/$out.out"
	sed -i 's/"time_s":[^,}]*//g' "$wd/$out.pics"/* 2> /dev/null
}

same() {
	cmp -s "$wd/$1.out" "$wd/$2.out" && cmp -s "$wd/$1.err" "$wd/$2.err" &&
		cmp -s "$wd/$1.status" "$wd/$2.status" &&
		diff -r "$wd/$1.pics" "$wd/$2.pics" > /dev/null
}

# in_jobs FUNCTION: FUNCTION K runs JOBS times at once, K = 0 .. JOBS-1
# (one per core; each takes the items of index K modulo JOBS), each in
# its own working directory $wd; their messages are printed after, and
# their passes and failures counted here.
jobs=$(nproc 2> /dev/null || echo 2)
in_jobs() {
	k=0
	while [ $k -lt "$jobs" ]; do
		(
			wd=$tmp/job$k pass=0 fail=0
			mkdir -p "$wd"
			"$1" $k > "$wd/log" 2>&1
			echo "$pass $fail" > "$wd/count"
		) &
		k=$((k + 1))
	done
	wait
	k=0
	while [ $k -lt "$jobs" ]; do
		cat "$tmp/job$k/log"
		# shellcheck disable=SC2046 # two numbers
		set -- $(cat "$tmp/job$k/count" 2> /dev/null || echo 0 1)
		pass=$((pass + $1)) fail=$((fail + $2))
		rm -rf "$tmp/job$k"
		k=$((k + 1))
	done
}

# check_files K: the files of index K modulo JOBS, each under every
# option, whole and streamed
check_files() {
	i=0
	for f in "$tmp"/*.vsc; do
		i=$((i + 1))
		[ $((i % jobs)) = "$1" ] || continue
		check_file "$f"
	done
}

check_file() {
	f=$1
	for opts in "" "--summary" "--json" "--summary --json" "--explain" \
		"--summary --explain" "--json --explain" "--accept-incomplete --summary" \
		"--witness" "--min --witness" "--json --witness" "--json --min" \
		"--svg p.svg" "--html p.html" "--html p.html --svg p.svg --witness" \
		"--accept-incomplete --json --witness" "--core-out c.vsc" \
		"--json --explain --core-out c.vsc"; do
		# shellcheck disable=SC2086 # opts are words
		run whole VSC_KEEP_EXECUTIONS=1 "$vsc" check $opts "$f"
		for j in 1 3; do
			# shellcheck disable=SC2086
			run stream VSC_KEEP_EXECUTIONS= "$vsc" check -j $j $opts "$f"
			if same whole stream; then
				ok
			else
				no "$(basename "$f") $opts -j $j: streamed report differs from the whole one"
				diff "$wd/whole.out" "$wd/stream.out" | head -5
				diff "$wd/whole.err" "$wd/stream.err" | head -5
			fi
		done
		status=$(cat "$wd/stream.status")
		case "$(basename "$f") $opts" in
		*-lost.vsc\ --accept* | *-notrailer.vsc\ --accept* | *-cutseg.vsc\ --accept*) ;;
		*-lost.vsc* | *-notrailer.vsc* | *-cutseg.vsc*)
			if [ "$status" = 0 ] || [ "$status" = 1 ]; then
				no "$(basename "$f") $opts: a plain verdict (exit $status) on an incomplete trace"
			else
				ok
			fi
			;;
		esac
	done
}
in_jobs check_files

# Two files, the first with its verdicts withheld: its inconsistent ones
# are shown as unknown, so the second's, past 100 of its others, are still
# among the first inconsistent ones drawn (counted over every file, they
# were let go unexplained: "no core to draw" pictures, and --html crashed).
for opts in "--svg p.svg" "--html p.html" "--html p.html --svg p.svg"; do
	# shellcheck disable=SC2086 # opts are words
	run whole VSC_KEEP_EXECUTIONS=1 "$vsc" check $opts "$tmp/gen3-lost.vsc" "$tmp/gen1.vsc"
	# shellcheck disable=SC2086
	run stream VSC_KEEP_EXECUTIONS= "$vsc" check $opts "$tmp/gen3-lost.vsc" "$tmp/gen1.vsc"
	if same whole stream; then
		ok
	else
		no "gen3-lost.vsc gen1.vsc $opts: streamed report differs from the whole one"
	fi
done

# --explain on a FIFO as on standard input: the comments its explanations
# cite are read again from regular files only (a second reader of the
# FIFO took the parser's bytes: it hung)
mkfifo "$tmp/fifo"
cat "$tmp/gen1.vsc" > "$tmp/fifo" &
timeout 60 "$vsc" check --explain "$tmp/fifo" > "$tmp/fifo.out" 2>&1
status=$?
wait
"$vsc" check --explain - < "$tmp/gen1.vsc" > "$tmp/stdin.out" 2>&1
if [ "$status" = 1 ] && cmp -s "$tmp/fifo.out" "$tmp/stdin.out"; then
	ok
else
	no "gen1.vsc through a FIFO, --explain: exit $status, or not what standard input gives"
fi

# --core-out of a FILE whose name has a newline: each core's first
# comment names FILE with '?' for it, so the cores written are a trace
# vsc decides inconsistent, and streamed they are the same bytes (the
# newline ended the comment, the rest of the name was a bad line, and
# streamed, the segment line came inside the name)
nl_name="$tmp/new
line.vsc"
cp "$tmp/gen2.vsc" "$nl_name"
VSC_KEEP_EXECUTIONS=1 "$vsc" check --core-out "$tmp/nl-whole.core" "$nl_name" > /dev/null 2>&1
VSC_KEEP_EXECUTIONS= "$vsc" check --core-out "$tmp/nl-stream.core" "$nl_name" > /dev/null 2>&1
"$vsc" check "$tmp/nl-stream.core" > /dev/null 2>&1
status=$?
if [ "$status" = 1 ] && cmp -s "$tmp/nl-whole.core" "$tmp/nl-stream.core"; then
	ok
else
	no "--core-out of a file named with a newline: its cores exit $status, or differ streamed"
fi
rm -f "$nl_name"

# Witnesses and explanations wait in a temporary file in $TMPDIR: one that
# cannot be written to the end (a full disk; here a file size limit, 256
# KB of some 500 KB) is an error (exit 2, the file's report not printed),
# never a report with a verdict and some of them missing (exit 1 with 712
# of 14,904 explanations); one that cannot be made at all keeps them in
# memory, the same report.
gen_lab 5 4000 > "$tmp/gen5.vsc"
for opts in "--explain" "--json --explain" "--witness" "--json --witness" "--summary --explain"; do
	# shellcheck disable=SC2086 # opts are words
	(trap '' XFSZ && ulimit -f 256 && exec "$vsc" check $opts "$tmp/gen5.vsc") \
		> "$tmp/full.out" 2> "$tmp/full.err"
	status=$?
	case $opts in
	--summary*) verdicts=$(grep -c '^    core (' "$tmp/full.out") ;;
	*) verdicts=$(wc -c < "$tmp/full.out") ;;
	esac
	if [ "$status" = 2 ] && [ "$verdicts" = 0 ] &&
		grep -q 'gen5.vsc: no report: .*temporary file could not be written' "$tmp/full.err"; then
		ok
	else
		no "gen5.vsc $opts, its temporary file cut at 256 KB: exit $status, $verdicts bytes or cores printed, $(head -c 200 "$tmp/full.err")"
	fi
done
# An explanation placed in that file, then the core after it cannot be
# written (--json --explain --core-out, cores of lines with long comments,
# a size limit below the first write): the execution is kept whole and
# its report drawn from it (before: its explanation was lost from a
# report printed with its verdict, 5 of 6, exit 2)
long=$(awk 'BEGIN { while (n++ < 1500) printf "a" }')
{
	echo "vsc 1"
	for i in 0 1 2 3 4 5; do
		printf 'segment %s\ninit x 0\ninit y 0\n' "$i"
		printf '1 w x 1 # %s\n1 r y 0 # %s\n2 w y 1 # %s\n2 r x 0 # %s\n' \
			"$long" "$long" "$long" "$long"
	done
} > "$tmp/longc.vsc"
VSC_KEEP_EXECUTIONS=1 "$vsc" check --json --explain --core-out /dev/null "$tmp/longc.vsc" 2>&1 |
	sed 's/"time_s":[^,}]*//g' > "$tmp/longc.want"
(trap '' XFSZ && ulimit -f 1 && "$vsc" check --json --explain --core-out /dev/null \
	"$tmp/longc.vsc" 2>&1; echo "exit $?") | sed 's/"time_s":[^,}]*//g' > "$tmp/longc.got"
echo "exit 1" >> "$tmp/longc.want"
if cmp -s "$tmp/longc.want" "$tmp/longc.got" && [ "$(grep -o '"core":' "$tmp/longc.got" | wc -l)" = 6 ]; then
	ok
else
	no "an explanation placed before a core that cannot be written: not the report kept whole, $(tail -1 "$tmp/longc.got")"
fi

for opts in "--explain" "--witness" "--json --explain --witness"; do
	# shellcheck disable=SC2086 # opts are words
	"$vsc" check $opts "$tmp/gen1.vsc" 2>&1 | sed 's/"time_s":[^,}]*//g' > "$tmp/tmpdir.want"
	# shellcheck disable=SC2086
	TMPDIR=$tmp/none "$vsc" check $opts "$tmp/gen1.vsc" 2>&1 |
		sed 's/"time_s":[^,}]*//g' > "$tmp/tmpdir.got"
	if cmp -s "$tmp/tmpdir.want" "$tmp/tmpdir.got" && [ -s "$tmp/tmpdir.got" ]; then
		ok
	else
		no "gen1.vsc $opts, no temporary file to be made: not the same report"
	fi
done

# The whole files are decided at all (the comparisons above are not empty).
"$vsc" check --summary "$tmp/gen1.vsc" > "$tmp/sum" 2>&1
if grep -q '^executions: 300 in 1 file$' "$tmp/sum" && grep -q '^  inconsistent  *[1-9]' "$tmp/sum"; then
	ok
else
	no "gen1.vsc: not 300 executions with some inconsistent"
fi

# --svg and --html explain and keep only the executions they show: a lab
# run of 60,000 segments (some 15,000 inconsistent) is decided under an
# address-space cap of 45 MB (it needs about 30; every inconsistent one's
# core kept took more than 60); --core-out too (each core waits in the
# temporary file as written: every core kept took more than 45 MB). Not
# under the sanitizers (their shadow memory needs more address space than
# any cap).
if grep -q __asan_init "$vsc" 2> /dev/null; then
	ok
else
	gen_lab 4 60000 > "$tmp/big.vsc"
	for opts in "--svg big.svg" "--html big.html" "--core-out big.core"; do
		rm -rf "$tmp/big.pics"
		mkdir "$tmp/big.pics"
		# shellcheck disable=SC2086 # opts are words
		(cd "$tmp/big.pics" && ulimit -v 45000 && "$vsc" check $opts "$tmp/big.vsc") \
			> /dev/null 2> "$tmp/big.err"
		status=$?
		if [ "$status" = 1 ] && ls "$tmp/big.pics" | grep -q 'big'; then
			ok
		else
			no "60,000 lab segments, $opts under a 45 MB cap: exit $status, $(head -c 200 "$tmp/big.err")"
		fi
	done
	# --explain (text, JSON, --summary) keeps no core: each explanation
	# waits in a temporary file, and every inconsistent segment has one
	# (every core kept took more than 60 MB)
	for opts in "--explain" "--json --explain" "--summary --explain"; do
		# shellcheck disable=SC2086 # opts are words
		(ulimit -v 45000 && exec "$vsc" check $opts "$tmp/big.vsc") > "$tmp/big.out" 2> "$tmp/big.err"
		status=$?
		case $opts in
		--json*)
			said=$(grep -o '"segments_inconsistent":[0-9]*' "$tmp/big.out" | cut -d: -f2)
			told=$(grep -o '"core":' "$tmp/big.out" | wc -l) ;;
		--summary*)
			said=$(sed -n 's/^  inconsistent  *//p' "$tmp/big.out")
			told=$(grep -c '^    core (' "$tmp/big.out") ;;
		*)
			said=$(sed -n 's/^segments: 60000, inconsistent: //p' "$tmp/big.out")
			told=$(grep -c '^  core: ' "$tmp/big.out") ;;
		esac
		if [ "$status" = 1 ] && [ "${said:-0}" -gt 1000 ] && [ "$said" = "$told" ]; then
			ok
		else
			no "60,000 lab segments, $opts under a 45 MB cap: exit $status, $told explanations of ${said:-?} inconsistent, $(head -c 200 "$tmp/big.err")"
		fi
	done
	# Every answer keeps a record of a few bytes per execution let go
	# (item_list.c), not a whole struct item: 200,000 segments under a
	# 40 MB cap (they need about 25; 120 bytes a segment needed 60-80)
	gen_lab 6 200000 > "$tmp/huge.vsc"
	for opts in "" "--json" "--summary" "--explain" "--json --witness"; do
		# shellcheck disable=SC2086 # opts are words
		(ulimit -v 40000 && exec "$vsc" check $opts "$tmp/huge.vsc") > "$tmp/huge.out" 2> "$tmp/huge.err"
		status=$?
		case $opts in
		--json*) said=$(grep -o '"segments_total":[0-9]*' "$tmp/huge.out" | cut -d: -f2) ;;
		--summary*) said=$(sed -n 's/^executions: \([0-9]*\) in 1 file$/\1/p' "$tmp/huge.out") ;;
		*) said=$(sed -n 's/^segments: \([0-9]*\), inconsistent: .*/\1/p' "$tmp/huge.out") ;;
		esac
		if [ "$status" = 1 ] && [ "${said:-0}" = 200000 ]; then
			ok
		else
			no "200,000 lab segments, '$opts' under a 40 MB cap: exit $status, ${said:-no} segments reported, $(head -c 200 "$tmp/huge.err")"
		fi
	done
	# --summary's outcome lists (summary_outcomes.c) take a couple of
	# bytes per execution: its peak RSS is the verdict's, within 1.8 MB
	# (a list of 16 bytes per execution took 2.7-3.8 MB more here)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$tmp/rss.plain" "$vsc" check "$tmp/huge.vsc" > /dev/null 2>&1
		for opts in "--summary" "--summary --json"; do
			# shellcheck disable=SC2086 # opts are words
			/usr/bin/time -f %M -o "$tmp/rss.summary" "$vsc" check $opts "$tmp/huge.vsc" \
				> /dev/null 2>&1
			plain=$(tail -1 "$tmp/rss.plain") summary=$(tail -1 "$tmp/rss.summary")
			if [ "$summary" -le $((plain + 1800)) ]; then
				ok
			else
				no "200,000 lab segments, '$opts': peak RSS $summary KB, the verdict's $plain KB"
			fi
		done
	fi
	rm -f "$tmp/huge.vsc" "$tmp/huge.out"
	# out of memory anywhere while reading and deciding is a clear exit
	# (3), never a crash: caps of 22-30 MB in 100 KB steps (a thread or
	# variable named before its room was made was freed unset: SIGSEGV at
	# 6 of these caps)
	# check_caps K: the caps of index K modulo JOBS
	check_caps() {
		crashed="" i=0
		for cap in $(seq 22000 100 30000); do
			i=$((i + 1))
			[ $((i % jobs)) = "$1" ] || continue
			(cd "$wd" && ulimit -v "$cap" && exec "$vsc" check --html big.html "$tmp/big.vsc") \
				> /dev/null 2>&1
			status=$?
			[ "$status" -lt 128 ] || crashed="$crashed ${cap}KB:$status"
		done
		[ -z "$crashed" ] && ok || no "60,000 lab segments, --html under caps of 22-30 MB: crashed at$crashed"
	}
	in_jobs check_caps
fi

echo "stream: $pass passed, $fail failed"
[ "$fail" = 0 ]
