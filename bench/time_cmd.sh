# Shared by bench/solver.sh and bench/solver_memory.sh (sourced, not run).
#
# bench_start NAME BUILD: $top, $build and $vsc (the build's vsc, which must
# exist, as must /usr/bin/time) and $tmp (a directory removed on exit).
bench_start() {
	top=$(cd "$(dirname "$0")/.." && pwd)
	build=$(cd "${2:-$top/build}" && pwd)
	vsc=$build/vsc
	[ -x "$vsc" ] || { echo "bench/$1: build $vsc first (make)" >&2; exit 2; }
	[ -x /usr/bin/time ] || { echo "bench/$1: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
	tmp=$(mktemp -d /tmp/vsc-bench.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' INT TERM
	mkdir -p "$top/bench/results"
}

# time_cmd OUTFILE LIMIT CMD...: run (killed after LIMIT s) under an
# address-space cap of $mem_mb MB, set $secs (wall, from date, ms
# resolution), $rss_kb (peak RSS of the command, from /usr/bin/time, which
# sees it through timeout's wait), $cpu_s (user + system CPU s, which the
# machine's load inflates far less than wall time) and $rc (137: killed)
time_cmd() {
	o=$1 lim=$2; shift 2
	t0=$(date +%s%N)
	/usr/bin/time -f "%e %M %U %S" -o "$tmp/time" timeout -s KILL "$lim" \
		sh -c 'ulimit -v "$0" && exec "$@"' $((mem_mb * 1024)) "$@" > "$o" 2> "$tmp/stderr"
	rc=$?
	t1=$(date +%s%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	rss_kb=$(tail -1 "$tmp/time" | cut -d' ' -f2)
	case $rss_kb in ''|*[!0-9]*) rss_kb=0 ;; esac
	cpu_s=$(tail -1 "$tmp/time" | awk 'NF == 4 { printf "%.2f", $3 + $4; next } { print "?" }')
}
