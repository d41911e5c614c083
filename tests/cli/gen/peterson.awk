# A Peterson lock of 2 threads as a relaxed run records it: n iterations
# of each thread in turn (consistent), then one where store buffering lets
# both in: T0 reads flag1 = 0 after T1 wrote 1, and T1, waiting, reads
# turn = 1 after its own `w turn 0` (T0's write came first), then m more
# iterations. Its core (8 events) has the shape of recorded ones: a cycle
# of 3 steps in T1 whose from-read is forced by a chain of 3 through T0.
#   awk -v n=3000 -v m=10 -f peterson.awk   (12 (n + m) + 14 events)
function iteration(t, c) {
	o = 1 - t
	print "T" t " w flag" t " 1"; print "T" t " w turn " o
	print "T" t " r flag" o " 0"; print "T" t " r counter " c
	print "T" t " w counter " c + 1; print "T" t " w flag" t " 0"
}
BEGIN {
	print "vsc 1"
	print "init flag0 0"; print "init flag1 0"; print "init turn 0"; print "init counter 0"
	c = 0
	for (i = 0; i < n; i++) { iteration(0, c++); iteration(1, c++) }
	print "T0 w flag0 1"; print "T0 w turn 1"; print "T0 r flag1 0"
	print "T1 w flag1 1"; print "T1 w turn 0"; print "T1 r flag0 1"; print "T1 r turn 1"
	print "T0 r counter " c; print "T0 w counter " c + 1; print "T0 w flag0 0"
	print "T1 r flag0 0"; print "T1 r counter " c + 1; print "T1 w counter " c + 2
	print "T1 w flag1 0"
	c += 2
	for (i = 0; i < m; i++) { iteration(0, c++); iteration(1, c++) }
}
