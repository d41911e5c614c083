# Brute-force satisfiability of a small DIMACS CNF: prints sat or unsat.
BEGIN { m = 0 }
$1 == "c" { next }
$1 == "p" { n = $3 + 0; next }
{
  for (i = 1; i <= NF; i++) {
    x = $i + 0
    if (x == 0) { m++; continue }
    c = cnt[m] + 0; lit[m "," c] = x; cnt[m] = c + 1
  }
}
END {
  total = 1; for (i = 0; i < n; i++) total *= 2
  for (a = 0; a < total; a++) {
    ok = 1
    for (j = 0; j < m && ok; j++) {
      good = 0
      for (k = 0; k < cnt[j]; k++) {
        l = lit[j "," k]; v = (l < 0 ? -l : l)
        b = int(a / (2 ^ (v - 1))) % 2
        if ((l > 0 && b == 1) || (l < 0 && b == 0)) good = 1
      }
      if (!good) ok = 0
    }
    if (ok) { print "sat"; exit }
  }
  print "unsat"
}
