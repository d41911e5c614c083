# SPDX-License-Identifier: MIT
# The SMT encoding of sequential consistency a user would write for a .vsc
# trace (one execution, no segments), for an SMT solver such as Z3:
#   awk -f bench/sc_smt.awk trace.vsc > trace.smt2 && z3 trace.smt2
# sat: some SC interleaving exists; unsat: none. No preemption bound.
# Every constraint is a difference of two positions against 0 (or an
# unknown initial value against a constant): the logic is QF_IDL.
#
# - one integer position per event; program order: positions increase;
# - a read (or RMW) of v from x picks one source: a write of v to x, or the
#   initial value when it may be v (a Boolean per choice, at least one true);
# - the source is before the read, and every other write of x is before the
#   source or after the read (from-read); for the initial value, every write
#   of x is after the read;
# - an RMW reads and writes at its one position;
# - init x ?: one integer per variable holds the unknown value.
# Values are compared as written: decimal, as `vsc gen` writes them.
# Positions need not be distinct: every constraint is a strict inequality
# between events that touch one variable (or are in one thread), so ties
# between other events can be broken either way.

function ev(t, i) { return "p_" t "_" i }
function smt_int(v) { return v ~ /^-/ ? "(- " substr(v, 2) ")" : v }

$1 == "vsc" || $1 == "segment" || /^[ \t]*#/ || NF == 0 { next }
{ sub(/[ \t]*#.*/, ""); if ($NF ~ /^@/) NF-- }
$1 == "init" { init[$2] = $3; next }
{
	t = $1; kind = $2; x = $3
	if (!(t in len)) { len[t] = 0; threads[++nthreads] = t }
	i = len[t]++
	e = ev(t, i); n++
	evname[n] = e; evvar[n] = x; evthread[n] = t
	if (kind == "r" || kind == "u") { isread[n] = 1; readval[n] = $4 }
	if (kind == "w" || kind == "u") {
		wv = kind == "w" ? $4 : $5
		nw[x]++; wr[x, nw[x]] = n; wval[n] = wv
	}
}
END {
	print "(set-logic QF_IDL)" # integer difference logic: what a user would pick
	print "(set-option :produce-models false)"
	for (k = 1; k <= n; k++) print "(declare-const " evname[k] " Int)"
	for (x in init) if (init[x] == "?") print "(declare-const init_" x " Int)"
	for (j = 1; j <= nthreads; j++) { # program order
		t = threads[j]
		for (i = 1; i < len[t]; i++)
			print "(assert (< " ev(t, i - 1) " " ev(t, i) "))"
	}
	for (k = 1; k <= n; k++) {
		if (!isread[k]) continue
		x = evvar[k]; v = readval[k]; r = evname[k]; choices = ""
		for (a = 1; a <= nw[x]; a++) {
			w = wr[x, a]
			if (w == k || wval[w] != v) continue
			b = "rf_" k "_" w
			print "(declare-const " b " Bool)"
			choices = choices " " b
			cond = "(< " evname[w] " " r ")"
			for (c = 1; c <= nw[x]; c++) {
				o = wr[x, c]
				if (o == w || o == k) continue
				cond = cond " (or (< " evname[o] " " evname[w] ") (< " r " " evname[o] "))"
			}
			print "(assert (=> " b " (and " cond ")))"
		}
		if (x in init && (init[x] == "?" || init[x] == v)) {
			b = "rf_" k "_init"
			print "(declare-const " b " Bool)"
			choices = choices " " b
			cond = init[x] == "?" ? "(= init_" x " " smt_int(v) ")" : "true"
			for (c = 1; c <= nw[x]; c++) {
				o = wr[x, c]
				if (o != k) cond = cond " (< " r " " evname[o] ")"
			}
			print "(assert (=> " b " (and " cond ")))"
		}
		print choices == "" ? "(assert false)" : "(assert (or" choices "))"
	}
	print "(check-sat)"
}
