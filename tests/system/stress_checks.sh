# Checks shared by the two stress suites (sourced, not run):
# tests/system/stress.sh (eBPF probes, vsc record) and
# tests/system/lttng_stress.sh (LTTng-UST, scripts/vsc-lttng). Both record
# the same programs of tests/targets/stress_*.c and lab_sb.c, built from
# the same sources (<vsc/probe.h> turns into USDT or LTTng probes), and
# account for every value the same way here, from the trace text.
# The caller defines $vsc and the functions ok and bad (each takes a
# message).

# rmw_chain TRACE VAR STEP [FIRST]: every line "TID u VAR OLD NEW" of VAR
# has NEW = OLD + STEP, and the OLD values are MIN, MIN+STEP, ... each
# exactly once (MIN = FIRST when given: the least OLD, not the first line's,
# since the trace lists thread by thread). Prints the count, or "bad: ..."
# when an RMW is wrong, twice or missing, or the chain starts elsewhere.
rmw_chain() {
  awk -v var="$2" -v step="$3" -v first="${4:-}" '
    $2 == "u" && $3 == var {
      if ($5 != $4 + step) wrong++
      if (seen[$4]++) twice++
      if (!n || $4 < min) min = $4
      if ($4 > max) max = $4
      n++
    }
    END {
      missing = n ? (max - min) / step + 1 - n : 0
      if (wrong || twice || missing) printf "bad: %d wrong, %d twice, %d missing\n", wrong, twice, missing
      else if (first != "" && (!n || min != first)) printf "bad: starts from %s, not %s\n", n ? min : "none", first
      else print n
    }' "$1"
}

# The verdict line of vsc check (its first line of output).
stress_verdict() { "$vsc" check "$1" 2>/dev/null | head -1; }

# check_consistent NAME TRACE: a program whose stores are all locked RMWs
# or seq_cst must come out consistent.
check_consistent() {
  v=$(stress_verdict "$2")
  [ "$v" = consistent ] && ok "$1: consistent" || bad "$1: verdict '$v', want consistent"
}

# check_spinlock NAME TRACE N: stress_spinlock's N increments are each
# `u counter K-1 K` once, K = 1 .. N, and the run is consistent.
check_spinlock() {
  got=$(rmw_chain "$2" counter 1 0)
  [ "$got" = "$3" ] && ok "$1: each of $3 increments once" ||
    bad "$1: counter increments: $got"
  check_consistent "$1" "$2"
}

# check_spsc NAME TRACE ITEMS MODE: the producer wrote 1 .. ITEMS into the
# ring in order and published head = 1 .. ITEMS; the consumer read 1 ..
# ITEMS from the ring in order and published tail = 1 .. ITEMS. seqcst
# must be consistent; relaxed may be either (its index spin-waits form a
# store-buffering pattern that x86-TSO allows, docs/record.md).
check_spsc() {
  got=$(awk -v n="$3" '
    function stored() { return $2 == "u" ? $5 : $4 }
    $3 ~ /^ring(:|$)/ && $2 == "r" { if ($4 != ++taken) bad++ }
    $3 ~ /^ring(:|$)/ && ($2 == "w" || $2 == "u") { if (stored() != ++put) bad++ }
    $3 == "head" && ($2 == "w" || $2 == "u") { if (stored() != ++h) bad++ }
    $3 == "tail" && ($2 == "w" || $2 == "u") { if (stored() != ++t) bad++ }
    END {
      if (put == n && taken == n && h == n && t == n && !bad) print "ok"
      else printf "put %d, taken %d, head %d, tail %d, %d out of order\n", put, taken, h, t, bad
    }' "$2")
  [ "$got" = ok ] && ok "$1: items 1..$3 put and taken once each, in order" || bad "$1: $got"
  if [ "$4" = relaxed ]; then
    v=$(stress_verdict "$2")
    case $v in
      consistent | inconsistent) ok "$1: $v (either is right for plain stores on x86-64)" ;;
      *) bad "$1: verdict '$v'" ;;
    esac
  else
    check_consistent "$1" "$2"
  fi
}

# check_seqlock NAME TRACE WRITES: the writer's sequence went 0 .. 2*WRITES
# by single steps, each once, and every write is `u a K-1 K` and
# `u b K-1 K` once, K = 1 .. WRITES; consistent.
check_seqlock() {
  got=$(rmw_chain "$2" seq 1)
  [ "$got" = $(($3 * 2)) ] && ok "$1: the sequence went 0..$(($3 * 2)) once each" ||
    bad "$1: sequence RMWs: $got"
  awk -v n="$3" '$2 == "u" && ($3 == "a" || $3 == "b") {
      if ($5 != $4 + 1 || seen[$3, $5]++) bad++; k++ }
    END { for (i = 1; i <= n; i++) if (seen["a", i] != 1 || seen["b", i] != 1) bad++
      exit !(k == 2 * n && !bad) }' "$2" &&
    ok "$1: every write u a K-1 K and u b K-1 K once, K = 1..$3" ||
    bad "$1: the writes of a and b are not each present once"
  check_consistent "$1" "$2"
}

# check_peterson NAME TRACE N: stress_peterson's N increments (seqcst) are
# each `w counter K` once, K = 1 .. N, and the run is consistent (its lock
# is plain seq_cst stores: victim[] has several writers and few values).
check_peterson() {
  awk -v n="$3" '$2 == "w" && $3 == "counter" { if ($4 < 1 || $4 > n || seen[$4]++) bad++; k++ }
    END { exit !(k == n && !bad) }' "$2" &&
    ok "$1: each of $3 increments once" || bad "$1: the increments w counter 1..$3 are not each once"
  check_consistent "$1" "$2"
}

# check_lab NAME TRACE ITERATIONS OUTCOMES: lab_sb's trace has one segment
# per iteration; exactly the iterations where the target saw r0 = r1 = 0
# are inconsistent, the rest consistent, none unknown.
check_lab() {
  weak=$(awk '$2 == 0 && $3 == 0' "$4" | wc -l)
  "$vsc" check --summary --json "$2" >"$2.json" 2>"$2.err"
  python3 - "$2.json" "$3" "$weak" <<'PY' &&
import json, sys
s = json.load(open(sys.argv[1]))
assert s["segments_total"] == int(sys.argv[2]), s["segments_total"]
assert s["segments_inconsistent"] == int(sys.argv[3]), s["segments_inconsistent"]
assert s["segments_unknown"] == 0 and not s["files_incomplete"]
PY
    ok "$1: $3 segments, $weak inconsistent (r0 = r1 = 0), the rest consistent" ||
    bad "$1: $(head -c 300 "$2.json") $(head -c 300 "$2.err")"
}
