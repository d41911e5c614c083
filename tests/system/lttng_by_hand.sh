# A session made by hand with LTTng's defaults (sourced by lttng_stress.sh
# at length): `lttng enable-event -u 'vsc:*'` makes channel0, which discards
# when its 4 x 512 KiB sub-buffers are full. Two programs: the flood mode of
# lttng_target.c (4 threads x 2.5 M stores, faster than the consumer: kept +
# lost must be exactly 10 M, and vsc check unknown with status 3), and the
# spinlock (either nothing lost and every increment once, consistent, or the
# loss counted and no plain verdict). Uses $top, $vsc, $tmp, $spin, ok, bad.

# hand_trace DIR CMD...: trace CMD into DIR with a default session
hand_trace() {
  dir=$1; shift
  (
    exec 9>>/tmp/vsc-lttng.lock
    flock -w 1800 9 || exit 1
    daemon=""
    if ! lttng list >/dev/null 2>&1; then
      lttng-sessiond --daemonize >/dev/null 2>&1 9>&- || exit 1
      daemon=$(cat /var/run/lttng/lttng-sessiond.pid)
    fi
    s="vsc-by-hand-$$"
    lttng create "$s" --output="$dir" >/dev/null &&
      lttng enable-event -s "$s" -u 'vsc:*' >/dev/null &&
      lttng add-context -s "$s" -u -t vtid -t vpid >/dev/null &&
      lttng start "$s" >/dev/null && "$@" >/dev/null 9>&-
    st=$?
    lttng destroy "$s" >/dev/null 2>&1
    if [ -n "$daemon" ]; then
      kill "$daemon"
      while kill -0 "$daemon" 2>/dev/null; do sleep 0.1; done
    fi
    exit $st
  )
}

# hand_verdict TRACE: the verdict line and status of vsc check
hand_verdict() {
  "$vsc" check "$1" >"$1.out" 2>&1
  echo "$(head -1 "$1.out") $?"
}

cc -std=c11 -O2 -DVSC_PROBE_LTTNG -I"$top/include" -pthread \
  "$top/tests/system/lttng_target.c" -o "$tmp/flood" -L"$build" -lvsc-lttng-ust -llttng-ust \
  -Wl,-rpath,"$build" || bad "by hand: lttng_target.c does not build"
if hand_trace "$tmp/hand-flood.ctf" "$tmp/flood" flood 4 2500000 &&
   "$vsc" convert -o "$tmp/hand-flood.vsc" "$tmp/hand-flood.ctf" 2>/dev/null; then
  kept=$(sed -n 's/^# events: //p' "$tmp/hand-flood.vsc")
  hlost=$(sed -n 's/^# lost events: //p' "$tmp/hand-flood.vsc")
  v=$(hand_verdict "$tmp/hand-flood.vsc")
  # LTTng counts every event it discards: a thread's vsc:thread marker
  # too (4 threads: at most 4 more than the stores lost, as in lttng.sh)
  sent=$((kept + hlost))
  if [ $sent -ge 10000000 ] && [ $sent -le 10000004 ] && [ "$v" = "unknown 3" -o "$hlost" = 0 ]; then
    ok "by hand, LTTng defaults: flood 4 x 2.5 M stores: $kept kept + $hlost lost = 10 M (+ $((sent - 10000000)) markers), vsc check: $v"
  else
    bad "by hand, LTTng defaults: flood: kept $kept + lost $hlost is not 10 M (+ at most 4 markers), or vsc check '$v'"
  fi
else
  bad "by hand, LTTng defaults: flood: tracing or conversion failed"
fi
rm -rf "$tmp/hand-flood.ctf" "$tmp/hand-flood.vsc"*

# shellcheck disable=SC2086
set -- $spin
if hand_trace "$tmp/hand-spin.ctf" "$tmp/stress_spinlock" $spin &&
   "$vsc" convert -o "$tmp/hand-spin.vsc" "$tmp/hand-spin.ctf" 2>/dev/null; then
  hlost=$(sed -n 's/^# lost events: //p' "$tmp/hand-spin.vsc")
  v=$(hand_verdict "$tmp/hand-spin.vsc")
  # without the statedump the variables keep their hex addresses: the
  # counter is the variable of the `u` lines that count 0, 1, 2...
  counter=$(awk '$2 == "u" && $4 == 0 && $5 == 1 { n[$3]++ } END { for (a in n) if (n[a] == 1) print a }' \
    "$tmp/hand-spin.vsc" | head -1)
  got=$(rmw_chain "$tmp/hand-spin.vsc" "${counter:-none}" 1 0)
  if [ "$hlost" = 0 ] && [ "$v" = "consistent 0" ] && [ "$got" = $(($1 * $2)) ]; then
    ok "by hand, LTTng defaults: spinlock: 0 lost, each of $got increments once, consistent"
  elif [ "$hlost" != 0 ] && [ "$v" = "unknown 3" ]; then
    ok "by hand, LTTng defaults: spinlock: $hlost lost, counted; vsc check: unknown (status 3)"
  else
    bad "by hand, LTTng defaults: spinlock: lost $hlost, increments $got, vsc check '$v'"
  fi
else
  bad "by hand, LTTng defaults: spinlock: tracing or conversion failed"
fi
rm -rf "$tmp/hand-spin.ctf" "$tmp/hand-spin.vsc"*
