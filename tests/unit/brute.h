/* SPDX-License-Identifier: MIT */
/* A brute-force reference for the solvers, written apart from libvsc: it
 * enumerates interleavings one event at a time and cuts a branch only when
 * its prefix is not SC (or already has as many preemptions as the best full
 * interleaving found). It reads programs through the public accessors only. */
#ifndef VSC_BRUTE_H
#define VSC_BRUTE_H

#include <stddef.h>
#include <stdint.h>

#include "vsc/vsc.h"

struct brute_answer {
	int consistent;           /* some SC interleaving exists */
	long least;               /* least preemptions of one, -1 when none */
	unsigned long long nodes; /* prefixes visited */
};

/* Returns 0, or -E2BIG when the search passed max_nodes (no answer). */
int brute_solve(const struct vsc_program *prog, unsigned long long max_nodes,
		struct brute_answer *out);

/* Replay an interleaving (thread index per step) on its own: every event
 * once, each read sees the last write or the initial value, an unknown
 * initial value is one value. Returns 0 and the preemption count, or -1
 * and a reason in why. */
int brute_replay(const struct vsc_program *prog, const uint32_t *threads, size_t length,
		 long *preemptions, char *why, size_t why_len);

#endif
