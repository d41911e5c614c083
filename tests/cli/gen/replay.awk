# Replay a trace written in interleaving order (vsc gen ... --order
# interleaved) as that interleaving: fail unless every read sees the value
# last written (or the initial value), and print the number of preemptions.
# With -v per_segment=1 each `segment NAME` starts an interleaving of its
# own (from the inits before the first segment, then its own), and a line
# `NAME PREEMPTIONS` is printed for each.
# Usage: awk -f replay.awk FILE FILE   (the file twice: pass 1 counts events)
function fail(msg) { print FILENAME ":" FNR ": " msg; bad = 1; exit 1 }
function event_line() { return $0 !~ /^[ \t]*(#|$)/ && $1 != "vsc" && $1 != "init" && $1 != "segment" }
function segment_ends() { if (in_segment) print segment, preemptions + 0 }
NR == FNR {
  if ($1 == "segment" && per_segment) at = $2
  else if (event_line()) left[at, $1]++
  next
}
$1 == "segment" && per_segment {
  segment_ends()
  in_segment = 1; segment = $2; preemptions = 0; prev = ""
  split("", val); split("", has); split("", unknown)
  for (x in first_val) { val[x] = first_val[x]; has[x] = 1 }
  for (x in first_unknown) unknown[x] = 1
  next
}
$1 == "init" {
  if ($3 == "?") unknown[$2] = 1; else { val[$2] = $3; has[$2] = 1 }
  if (!in_segment) { if ($3 == "?") first_unknown[$2] = 1; else first_val[$2] = $3 }
  next
}
!event_line() { next }
{
  t = $1; kind = $2; x = $3
  if (prev != "" && prev != t && left[segment, prev] > 0) preemptions++
  prev = t; left[segment, t]--
  if (kind == "r" || kind == "u") {
    if (has[x]) { if (val[x] != $4) fail("read of " $4 " from " x " which holds " val[x]) }
    else if (unknown[x]) { val[x] = $4; has[x] = 1 }
    else fail("read of " x " before any write")
  }
  if (kind == "w") { val[x] = $4; has[x] = 1 }
  if (kind == "u") { val[x] = $5; has[x] = 1 }
}
END { if (bad) exit 1; if (per_segment) segment_ends(); else print preemptions + 0 }
