#!/bin/sh
# vsc litmus end to end: every shipped x86 test (tests/litmus/x86) is
# generated, built, run N times pinned across CPUs and recorded with eBPF;
# every execution's verdict must agree with the SC-ness libvsc gives its
# outcome, no event may be lost, and no outcome x86-TSO forbids may show
# (tests/litmus/x86-tso.expect). The AArch64 tests are built with the cross
# compiler and run under qemu-user (not recorded), when both are installed.
# A malformed test is refused with FILE:LINE:COL and exit status 2.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
iterations=${VSC_LITMUS_ITERATIONS:-200}
fail=0
bad() { echo "FAIL: litmus: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bad input: a message that says where, exit 2, nothing run
printf 'X86 T\n{ x=0; }\n P0 ;\n MOV [x],EAX,$1 ;\nexists (x=1)\n' > "$tmp/bad.litmus"
"$vsc" litmus "$tmp/bad.litmus" > "$tmp/bad.out" 2> "$tmp/bad.err"
status=$?
[ $status -eq 2 ] || bad "malformed test: exit $status, wanted 2"
grep -q "bad.litmus:4:[0-9]*: " "$tmp/bad.err" || bad "malformed test: no FILE:LINE:COL ($(cat "$tmp/bad.err"))"
# a test the subset cannot express: refused before anything runs
printf 'X86 T\n{ x=0; }\n P0 ;\n MOV EAX,[x] ;\n MOV EAX,[x] ;\nexists (0:EAX=1)\n' > "$tmp/twice.litmus"
"$vsc" litmus "$tmp/twice.litmus" > /dev/null 2> "$tmp/twice.err"
status=$?
[ $status -eq 2 ] || bad "register loaded twice: exit $status, wanted 2"
grep -q "twice.litmus:5:2: register EAX is written after a load" "$tmp/twice.err" \
  || bad "register loaded twice: $(cat "$tmp/twice.err")"

# summarise JSON_LINES EXPECT LABEL N: the checks above, one line per test
summarise() {
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, sys
lines, expect_path, label, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
expect = {}
for line in open(expect_path):
    if line.strip() and not line.startswith("#"):
        name, verdict = line.split()
        expect[name] = verdict
failed = 0
def bad(msg):
    global failed
    failed += 1
    print("FAIL: litmus (%s): %s" % (label, msg))
seen = set()
for line in open(lines):
    r = json.loads(line)
    name = r["test"]
    seen.add(name)
    if sum(o["count"] for o in r["outcomes"]) != n or r["iterations"] != n:
        bad("%s: the outcomes do not add up to %d iterations" % (name, n))
    if any(o["sc"] is None for o in r["outcomes"]):
        bad("%s: an outcome's SC-ness was not decided" % name)
    if r["recorded"]:
        if r["lost_events"] or r["verdicts_unknown"] or r.get("trouble"):
            bad("%s: incomplete recording or unknown verdicts: %s" % (name, r))
        if r["verdicts_disagree"]:
            bad("%s: %d executions' verdicts disagree with their outcome's SC-ness"
                % (name, r["verdicts_disagree"]))
        if r["verdicts_agree"] != n:
            bad("%s: %d of %d verdicts agree" % (name, r["verdicts_agree"], n))
    if expect.get(name) == "forbidden" and r["not_sc"]:
        bad("%s: %d executions show an outcome x86-TSO forbids" % (name, r["not_sc"]))
    print("litmus %s %s: %d iterations, %d states, %d not SC%s, condition %s" % (
        label, name, n, len(r["outcomes"]), r["not_sc"],
        " (model: %s)" % expect[name] if name in expect else "", r["observation"]))
for name in expect:
    if label == "x86" and name not in seen:
        bad("%s: no report" % name)
sys.exit(1 if failed else 0)
PY
}

if [ "$(id -u)" != 0 ]; then
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then bad "needs root (eBPF) and VSC_REQUIRE_ALL=1"; exit 1; fi
  echo "skip: litmus x86: recording with eBPF needs root"
elif [ "$(uname -m)" != x86_64 ]; then
  echo "skip: litmus x86: this machine is $(uname -m)"
else
  "$vsc" litmus --json -n "$iterations" "$top"/tests/litmus/x86/*.litmus > "$tmp/x86.jsonl" \
    2> "$tmp/x86.err"
  status=$?
  [ $status -eq 0 ] || bad "x86: exit status $status: $(cat "$tmp/x86.err")"
  summarise "$tmp/x86.jsonl" "$top/tests/litmus/x86-tso.expect" x86 "$iterations" || fail=$((fail + 1))
fi

if command -v aarch64-linux-gnu-gcc > /dev/null && command -v qemu-aarch64 > /dev/null; then
  "$vsc" litmus --json -n 50 "$top"/tests/litmus/aarch64/*.litmus > "$tmp/a64.jsonl" \
    2> "$tmp/a64.err"
  status=$?
  [ $status -eq 0 ] || bad "aarch64: exit status $status: $(cat "$tmp/a64.err")"
  echo "(AArch64 under qemu-user: the emulator's outcomes, not ARM hardware's)"
  summarise "$tmp/a64.jsonl" /dev/null aarch64 50 || fail=$((fail + 1))
elif [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
  bad "aarch64-linux-gnu-gcc or qemu-aarch64 missing and VSC_REQUIRE_ALL=1"
else
  echo "skip: litmus aarch64: aarch64-linux-gnu-gcc or qemu-aarch64 missing"
fi

[ $fail -eq 0 ] && echo "litmus: ok"
[ $fail -eq 0 ]
