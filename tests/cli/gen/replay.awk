# Replay a trace written in interleaving order (vsc gen ... --order
# interleaved) as that interleaving: fail unless every read sees the value
# last written (or the initial value), and print the number of preemptions.
# Usage: awk -f replay.awk FILE FILE   (the file twice: pass 1 counts events)
function fail(msg) { print FILENAME ":" FNR ": " msg; bad = 1; exit 1 }
function event_line() { return $0 !~ /^[ \t]*(#|$)/ && $1 != "vsc" && $1 != "init" && $1 != "segment" }
NR == FNR { if (event_line()) left[$1]++; next }
$1 == "init" { if ($3 == "?") unknown[$2] = 1; else { val[$2] = $3; has[$2] = 1 }; next }
!event_line() { next }
{
  t = $1; kind = $2; x = $3
  if (prev != "" && prev != t && left[prev] > 0) preemptions++
  prev = t; left[t]--
  if (kind == "r" || kind == "u") {
    if (has[x]) { if (val[x] != $4) fail("read of " $4 " from " x " which holds " val[x]) }
    else if (unknown[x]) { val[x] = $4; has[x] = 1 }
    else fail("read of " x " before any write")
  }
  if (kind == "w") { val[x] = $4; has[x] = 1 }
  if (kind == "u") { val[x] = $5; has[x] = 1 }
}
END { if (!bad) print preemptions + 0 }
