#!/bin/sh
# LTTng-UST on the arm64 kernel (run by guest.sh inside the emulated
# machine): the cross-built tests/system/lttng_target (there is no compiler
# in the machine, so tests/system/lttng.sh, which builds its programs, does
# not run there) traced with scripts/vsc-lttng, the kept CTF trace converted
# again with `vsc convert`, and the store-buffering outcome checked.
#
#   tests/system/arm64/lttng.sh BUILD
set -u
build=$(cd "${1:?usage: lttng.sh BUILD}" && pwd)
top=$(cd "$(dirname "$0")/../../.." && pwd)
vsc=$build/vsc target=$build/targets/lttng_target
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "  ok: $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL: $*"; }
for t in lttng lttng-sessiond "$target"; do
  command -v "$t" >/dev/null 2>&1 || { echo "arm64 lttng: FAIL: no $t"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
events_of() {
  grep -E '^[0-9]+ [rwu] ' "$1" | sed -e 's/ @[0-9]*//' -e 's/ *#.*//' | sort -s -n -k1,1
}

# 1. Exact per-thread sequences: 3 threads x 1000 loads, stores, fetch-adds.
"$top/scripts/vsc-lttng" --vsc "$vsc" -t "$tmp/ctf" -o "$tmp/seq.vsc" --no-check -- \
  "$target" seq 3 1000 >"$tmp/seq.out" 2>"$tmp/seq.err"
st=$?
sort -s -n -k1,1 "$tmp/seq.out" >"$tmp/want"
events_of "$tmp/seq.vsc" >"$tmp/got"
if [ $st = 0 ] && [ "$(wc -l <"$tmp/want")" = 3000 ] && cmp -s "$tmp/want" "$tmp/got"; then
  ok "vsc-lttng: 3 threads x 1000 events, each thread's sequence exact"
else
  bad "vsc-lttng seq: status $st, $(wc -l <"$tmp/got") events, $(tail -2 "$tmp/seq.err")"
  diff "$tmp/want" "$tmp/got" | head -5
fi
grep -q '^# lost events: 0$' "$tmp/seq.vsc" && ok "vsc-lttng: 0 lost events" ||
  bad "vsc-lttng: $(grep '^# lost' "$tmp/seq.vsc")"

# 2. vsc convert on the kept CTF trace gives the same events, and vsc check
#    decides them.
"$vsc" convert -o "$tmp/again.vsc" "$tmp/ctf" 2>"$tmp/convert.err"
events_of "$tmp/again.vsc" >"$tmp/again"
cmp -s "$tmp/want" "$tmp/again" && ok "vsc convert of the CTF trace: the same 3000 events" ||
  bad "vsc convert: $(wc -l <"$tmp/again") events, $(tail -2 "$tmp/convert.err")"
"$vsc" check "$tmp/again.vsc" >"$tmp/verdict" 2>&1
st=$?
[ $st = 0 ] || [ $st = 1 ] && ok "vsc check decides it: $(head -1 "$tmp/verdict")" ||
  bad "vsc check: status $st, $(head -2 "$tmp/verdict")"

# 3. A store-buffering run whose outcome is not SC: vsc-lttng says so.
"$top/scripts/vsc-lttng" --vsc "$vsc" -- "$target" sb-weak >"$tmp/sb.out" 2>"$tmp/sb.err"
st=$?
[ $st = 1 ] && [ "$(head -1 "$tmp/sb.out")" = inconsistent ] &&
  ok "vsc-lttng sb-weak: inconsistent (status 1)" ||
  bad "vsc-lttng sb-weak: status $st, $(head -1 "$tmp/sb.out") $(tail -2 "$tmp/sb.err")"

echo "arm64 lttng: $pass passed, $fail failed"
[ $fail = 0 ]
