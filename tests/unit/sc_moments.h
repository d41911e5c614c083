/* SPDX-License-Identifier: MIT */
/* Every moment of every SC interleaving of a small program, by brute force
 * and apart from libvsc (public accessors only): the points (each thread's
 * events done) that lie on some complete SC interleaving, and from each
 * the threads whose next event leads on to one. The bounds on where the
 * threads are when a read happens (stale_bounds.c) are checked against
 * them. */
#ifndef VSC_SC_MOMENTS_H
#define VSC_SC_MOMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "vsc/vsc.h"

struct sc_moments {
	size_t threads, n; /* n points */
	uint32_t *pos;     /* n * threads: each thread's events done */
	uint32_t *steps;   /* n: bit t set: thread t may do its next event there */
	int consistent;    /* some SC interleaving exists (n > 0) */
};

/* 0; -E2BIG when the program is too large (more than 32 threads, or the
 * states do not fit a 64-bit key, or more than max_states of them); or
 * -ENOMEM. */
int sc_moments(const struct vsc_program *p, size_t max_states, struct sc_moments *m);
void sc_moments_free(struct sc_moments *m);

#endif
