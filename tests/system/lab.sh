#!/bin/sh
# The lab path end to end: tests/targets/lab_sb (store buffering with
# <vsc/lab.h>, fresh variables per iteration) is recorded with `vsc record`
# (eBPF) and, built with -DVSC_PROBE_LTTNG, with scripts/vsc-lttng;
# every iteration is a segment, and vsc must call it inconsistent exactly
# when the target saw r0 = r1 = 0 (what the hardware did is the target's own
# record), each with a minimal core of the four events; --summary adds up.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
target=$(dirname "$vsc")/targets/lab_sb
top=$(cd "$(dirname "$0")/../.." && pwd)
iterations=${VSC_LAB_ITERATIONS:-20000}
fail=0
bad() { echo "FAIL: lab: $*"; fail=$((fail + 1)); }
if [ "$(id -u)" != 0 ]; then
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then bad "needs root (eBPF) and VSC_REQUIRE_ALL=1"; exit 1; fi
  echo "skip: lab: recording with eBPF needs root"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# verify TRACE OUTCOMES LABEL: every iteration right, --summary adds up
verify() {
  grep -q "^# lost events: 0$" "$1" || bad "$3: events were lost"
  "$vsc" check --json --explain "$1" > "$tmp/check.json"
  status=$?
  "$vsc" check --summary --json "$1" > "$tmp/summary.json"
  python3 - "$2" "$tmp/check.json" "$tmp/summary.json" "$status" "$3" <<'PY' || bad "$3: verdicts"
import json, sys
outcomes = {}
for line in open(sys.argv[1]):
    i, r0, r1 = line.split()
    outcomes[i] = (int(r0), int(r1))
check = json.loads(open(sys.argv[2]).read())
summary = json.loads(open(sys.argv[3]).read())
segs = {s["name"]: s for s in check["segments"]}
assert set(segs) == set(outcomes), "segments %d, iterations %d" % (len(segs), len(outcomes))
weak = 0
for i, (r0, r1) in outcomes.items():
    s = segs[i]
    assert s["threads"] == 2 and s["events"] == 4, (i, s)
    if r0 == 0 and r1 == 0:
        weak += 1
        assert s["verdict"] == "inconsistent", (i, s)
        assert len(s["core"]) == 4 and s["core_minimal"], (i, s)
    else:
        assert s["verdict"] == "consistent", (i, r0, r1, s)
assert summary["segments_total"] == len(outcomes)
assert summary["segments_inconsistent"] == weak
assert int(sys.argv[4]) == (1 if weak else 0)
print("lab (%s): %d iterations, %d showed r0 = r1 = 0, each reported inconsistent "
      "with a 4-event core" % (sys.argv[5], len(outcomes), weak))
PY
}

# eBPF: vsc record
"$vsc" record -o "$tmp/sb.vsc" -- "$target" "$iterations" "$tmp/outcomes.txt" 2> "$tmp/record.err" \
  || { bad "vsc record failed: $(cat "$tmp/record.err")"; exit 1; }
verify "$tmp/sb.vsc" "$tmp/outcomes.txt" eBPF

# LTTng: the same target built with -DVSC_PROBE_LTTNG, through scripts/vsc-lttng
if [ -x "$target-lttng" ]; then
  "$top/scripts/vsc-lttng" --vsc "$vsc" -o "$tmp/sbl.vsc" --no-check -- \
    "$target-lttng" "$iterations" "$tmp/outcomes-lttng.txt" 2> "$tmp/lttng.err" \
    || bad "vsc-lttng failed: $(cat "$tmp/lttng.err")"
  verify "$tmp/sbl.vsc" "$tmp/outcomes-lttng.txt" LTTng
elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
  bad "$target-lttng not built (LTTng-UST missing?) and VSC_REQUIRE_ALL=1"
else
  echo "skip: lab: $target-lttng not built"
fi

[ $fail -eq 0 ] && echo "lab: ok"
[ $fail -eq 0 ]
