/* SPDX-License-Identifier: MIT */
/*
 * Noticing an ARM64 load/store-exclusive loop that a watchpoint keeps from
 * ever finishing.
 *
 * A watchpoint on the variable of an `ldxr`/`stxr` loop (what GCC emits
 * for atomics on ARMv8.0 cores) traps at the load-exclusive; the exception
 * return clears the exclusive monitor, so the store-exclusive fails and the
 * loop loads again, for ever. A failed store-exclusive is not visible to
 * us (its status register is written after the trap), so the loop is told
 * from honest spinning by what it cannot do: make progress. One thread
 * trapping at the same load-exclusive, reading the same value, hit after
 * hit for a long while, is stuck. A spin-wait on a lock held that long by
 * a thread doing unwatched work looks the same: the recording then stops
 * with a clear message (a refusal, never a wrong verdict).
 */
#ifndef VSC_CAPTURE_LLSC_GUARD_H
#define VSC_CAPTURE_LLSC_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"

/* Stuck: at least this many hits and this long at one load-exclusive. */
#define LLSC_STUCK_HITS 1000u
#define LLSC_STUCK_NS 2000000000ull

struct llsc_guard {
	uint64_t ip;       /* the load-exclusive of the current run; 0: none */
	int64_t value;     /* the value it read */
	uint64_t first_ns; /* when the run began */
	uint32_t hits;
};

/* One hit of the guard's thread, in order: the access kind and address of
 * its instruction, the value in memory at the trap, when. True when the
 * thread looks stuck in a load/store-exclusive loop. */
bool llsc_guard_stuck(struct llsc_guard *g, enum watch_access access, uint64_t ip, int64_t value,
		      uint64_t ts_ns);

#endif /* VSC_CAPTURE_LLSC_GUARD_H */
