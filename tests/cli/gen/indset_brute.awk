# Brute force: does the DIMACS edge graph have an independent set of k vertices? (-v k=K)
BEGIN { m = 0 }
$1 == "p" { n = $3 + 0; next }
$1 == "e" { eu[m] = $2 + 0; ev[m] = $3 + 0; m++ }
END {
  total = 1; for (i = 0; i < n; i++) total *= 2
  for (a = 0; a < total; a++) {
    size = 0
    for (v = 1; v <= n; v++) if (int(a / (2 ^ (v - 1))) % 2) size++
    if (size != k + 0) continue
    ok = 1
    for (e = 0; e < m && ok; e++)
      if (int(a / (2 ^ (eu[e] - 1))) % 2 && int(a / (2 ^ (ev[e] - 1))) % 2) ok = 0
    if (ok) { print "yes"; exit }
  }
  print "no"
}
