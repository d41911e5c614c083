/* SPDX-License-Identifier: MIT */
/* How the verdicts of executions decided apart make one verdict: the one
 * rule vsc check and the babeltrace2 sink both report by. */
#include "vsc/vsc.h"

enum vsc_verdict vsc_verdict_combine(enum vsc_verdict so_far, enum vsc_verdict next)
{
	/* A limit that stopped one execution leaves the whole undecided, even
	 * beside an inconsistent one (CONTRACT: the highest status wins). */
	if (so_far == VSC_UNKNOWN || next == VSC_UNKNOWN)
		return VSC_UNKNOWN;
	if (so_far == VSC_INCONSISTENT || next == VSC_INCONSISTENT)
		return VSC_INCONSISTENT;
	return VSC_CONSISTENT;
}
