/* SPDX-License-Identifier: MIT */
/*
 * The critical section of the spinlock stress targets (stress_spinlock,
 * stress_pool): take a compare-and-swap lock, add 1 to the counter with an
 * exchange, release with an exchange. Every store is a locked
 * read-modify-write, so every execution is sequentially consistent, and
 * each increment shows in the trace as one `u counter K-1 K`.
 */
#ifndef VSC_TARGETS_CAS_LOCK_H
#define VSC_TARGETS_CAS_LOCK_H

#include <sched.h>
#include <stdint.h>

#include <vsc/probe.h>

static inline void cas_lock_increment(int32_t *lock, int64_t *counter)
{
	int32_t expected = 0;
	while (!vsc_cas32(lock, &expected, 1)) {
		while (vsc_load32(lock) != 0)
			sched_yield(); /* the holder may be off its CPU */
		expected = 0;
	}
	int64_t c = vsc_load64(counter);
	vsc_xchg64(counter, c + 1);
	vsc_xchg32(lock, 0);
}

#endif
