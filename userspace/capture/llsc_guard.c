/* SPDX-License-Identifier: MIT */
#include "llsc_guard.h"

bool llsc_guard_stuck(struct llsc_guard *g, enum watch_access access, uint64_t ip, int64_t value,
		      uint64_t ts_ns)
{
	/* A store-exclusive between two loads of the loop is part of it (on
	 * cores where a failing one still traps); any other access is
	 * progress. */
	if (access == WATCH_ACCESS_STORE_EXCL)
		return false;
	if (access != WATCH_ACCESS_LOAD_EXCL) {
		g->ip = 0;
		return false;
	}
	if (g->ip != ip || g->value != value || ts_ns < g->first_ns)
		*g = (struct llsc_guard){ .ip = ip, .value = value, .first_ns = ts_ns };
	g->hits++;
	return g->hits >= LLSC_STUCK_HITS && ts_ns - g->first_ns >= LLSC_STUCK_NS;
}
