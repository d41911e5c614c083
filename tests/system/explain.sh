#!/bin/sh
# Explanations of recorded real traces (vsc record, eBPF):
# - a single-producer/single-consumer ring with relaxed stores
#   (tests/targets/explain_ring.c) is recorded until a run is inconsistent
#   (on x86-64 almost every run is: store buffering between `head` and
#   `tail`); the same ring with seq_cst stores must be consistent;
# - `vsc check --explain --json --core-out` on the inconsistent trace: a
#   1-minimal core of at most a few dozen events, with a cycle; the core
#   file is inconsistent on its own (the default solver and the exact one),
#   every read in it keeps a write of its value (or the initial value), and
#   each of its lines is the event at the trace line its comment names;
# - a lab run (tests/targets/lab_sb): `--summary --explain --json` gives
#   every inconsistent segment a 4-event core, and --core-out writes one
#   inconsistent segment per inconsistent segment.
# The times are printed, not checked.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
targets=$(dirname "$vsc")/targets
fail=0
bad() { echo "FAIL: explain (recorded): $*"; fail=$((fail + 1)); }
if [ "$(id -u)" != 0 ]; then
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then bad "needs root (eBPF) and VSC_REQUIRE_ALL=1"; exit 1; fi
  echo "skip: explain (recorded): recording with eBPF needs root"
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  # the ring's store buffering is an x86-TSO outcome; other machines show others
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then bad "the ring test is written for x86-64"; exit 1; fi
  echo "skip: explain (recorded): the ring test is written for x86-64, this is $(uname -m)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
items=${VSC_EXPLAIN_RING_ITEMS:-1000}
now() { date +%s.%N; }
took() { echo "$1 $(now)" | awk '{ printf "%.2f", $2 - $1 }'; }

# The seq_cst ring: consistent.
"$vsc" record -o "$tmp/sc.vsc" -- "$targets/explain_ring_sc" "$items" 2> "$tmp/sc.err" ||
  bad "vsc record explain_ring_sc: $(cat "$tmp/sc.err")"
"$vsc" check "$tmp/sc.vsc" > "$tmp/sc.out"
[ $? -eq 0 ] || bad "the seq_cst ring is not consistent: $(head -3 "$tmp/sc.out")"

# The relaxed ring: recorded until a run is inconsistent (up to 6 runs).
found=0
for run in 1 2 3 4 5 6; do
  "$vsc" record -o "$tmp/ring.vsc" -- "$targets/explain_ring" "$items" 2> "$tmp/ring.err" ||
    { bad "vsc record explain_ring: $(cat "$tmp/ring.err")"; break; }
  grep -q "^# lost events: 0$" "$tmp/ring.vsc" || { bad "events were lost"; break; }
  t0=$(now)
  "$vsc" check "$tmp/ring.vsc" > /dev/null
  status=$?
  verdict_s=$(took "$t0")
  [ $status -eq 1 ] && { found=1; break; }
  [ $status -eq 0 ] || { bad "vsc check on the ring: exit status $status"; break; }
  echo "explain (recorded): ring run $run was consistent; recording again"
done
[ $found -eq 1 ] || bad "no run of the relaxed ring was inconsistent in 6 runs"

if [ $found -eq 1 ]; then
  t0=$(now)
  "$vsc" check --explain --json --core-out "$tmp/core.vsc" "$tmp/ring.vsc" > "$tmp/ring.json"
  status=$?
  explain_s=$(took "$t0")
  [ $status -eq 1 ] || bad "--explain exit status $status"
  "$vsc" check "$tmp/core.vsc" > /dev/null
  [ $? -eq 1 ] || bad "the core file is not inconsistent on its own"
  "$vsc" check --solver exact "$tmp/core.vsc" > /dev/null
  [ $? -eq 1 ] || bad "the exact solver does not find the core file inconsistent"
  python3 - "$tmp/ring.vsc" "$tmp/ring.json" "$tmp/core.vsc" <<'PY' || bad "the ring's core"
import json, re, sys
trace_path, json_path, core_path = sys.argv[1:]
result = json.load(open(json_path))
events = result["events"]
core = result["core"]
assert result["verdict"] == "inconsistent", result["verdict"]
assert result["core_minimal"] is True, "core not 1-minimal"
assert 2 <= len(core) <= 24, "core of %d events" % len(core)
assert len({t for t, _ in core}) == 2, "the core should involve both threads: %s" % core
assert result["cycle"], "no cycle"
# the core file: its event lines, with the trace line each one names
core_lines = [l for l in open(core_path) if re.match(r"^\S+ [rwu] ", l)]
assert len(core_lines) == len(core), (len(core_lines), len(core))
trace = open(trace_path).read().split("\n")
written, reads = {}, []
for l in core_lines:
    body, comment = l.split("#", 1)
    m = re.search(r"line (\d+)", comment)
    assert m, l
    original = trace[int(m.group(1)) - 1].split("#")[0].split("@")[0].split()
    assert original == body.split(), (l, original)
    f = body.split()
    if f[1] == "w":
        written.setdefault(f[2], set()).add(f[3])
    elif f[1] == "r":
        reads.append((f[2], f[3]))
inits = {}
for l in open(core_path):
    f = l.split()
    if len(f) == 3 and f[0] == "init":
        inits[f[1]] = f[2]
for var, value in reads:
    assert value in written.get(var, set()) or inits.get(var) == value, \
        "read of %s = %s keeps no source in the core" % (var, value)
print("explain (recorded): ring of %d events: core of %d events, 1-minimal, %d cycle steps"
      % (events, len(core), len(result["cycle"])))
PY
  echo "explain (recorded): ring: verdict ${verdict_s} s, --explain --core-out ${explain_s} s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
fi

# A lab run: every inconsistent segment gets the 4 events of store buffering.
lab_iterations=${VSC_EXPLAIN_LAB_ITERATIONS:-3000}
if "$vsc" record -o "$tmp/lab.vsc" -- "$targets/lab_sb" "$lab_iterations" "$tmp/lab.txt" \
  2> "$tmp/lab.err"; then
  t0=$(now)
  "$vsc" check --summary --explain --json --core-out "$tmp/labcore.vsc" "$tmp/lab.vsc" \
    > "$tmp/lab.json"
  status=$?
  lab_s=$(took "$t0")
  weak=$(awk '$2 == 0 && $3 == 0' "$tmp/lab.txt" | wc -l)
  [ $status -eq $([ "$weak" -gt 0 ] && echo 1 || echo 0) ] || bad "lab: exit status $status"
  python3 - "$tmp/lab.json" "$weak" <<'PY' || bad "lab cores"
import json, sys
s = json.load(open(sys.argv[1]))
weak = int(sys.argv[2])
assert s["segments_inconsistent"] == weak, (s["segments_inconsistent"], weak)
for entry in s["inconsistent"]:
    assert len(entry["core"]) == 4 and entry["core_minimal"], entry
    assert entry["cycle"], entry
print("explain (recorded): lab_sb: %d segments, %d inconsistent, each with a 4-event core"
      % (s["segments_total"], weak))
PY
  if [ "$weak" -gt 0 ]; then
    segments=$(grep -c "^segment " "$tmp/labcore.vsc")
    [ "$segments" -eq "$weak" ] || bad "lab: $segments core segments for $weak inconsistent ones"
    "$vsc" check --summary --json "$tmp/labcore.vsc" > "$tmp/labcore.json"
    python3 - "$tmp/labcore.json" "$weak" <<'PY' || bad "lab: core file"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["segments_inconsistent"] == int(sys.argv[2]) == s["segments_total"], s
PY
  fi
  echo "explain (recorded): lab_sb: --summary --explain --core-out ${lab_s} s"
else
  bad "vsc record lab_sb: $(cat "$tmp/lab.err")"
fi

[ $fail -eq 0 ] && echo "explain (recorded): ok"
[ $fail -eq 0 ]
