/* SPDX-License-Identifier: MIT */
/* Fewer preemptions in a witness of any program (witness_joins.h).
 *
 * coh_repair_witness() joins a preempted thread's pieces under the
 * witness's own sources and coherence order; it was written for programs
 * whose values identify writes, but needs only each read's source, which
 * a replay of the witness gives for any program: the last write of the
 * variable before the read, or the initial value with none. Every order
 * it keeps is a topological order of the same graph and is replayed
 * against those sources, so it is an SC interleaving with the same reads. */
#include "witness_joins.h"

#include "coherence_guess.h"
#include "program.h"

#include <errno.h>
#include <stdlib.h>

/* base (threads + 1 words) and rf (events) of the witness steps. */
static void sources_of_witness(const struct vsc_program *p, const uint32_t *steps, uint32_t *base,
			       uint32_t *rf, uint32_t *last, uint32_t *pos)
{
	uint32_t k = program_threads(p), nvars = program_vars(p), n = 0;

	for (uint32_t t = 0; t < k; t++) {
		base[t] = n;
		n += p->threads[t].length;
		pos[t] = 0;
	}
	base[k] = n;
	for (uint32_t x = 0; x < nvars; x++)
		last[x] = COH_INIT;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t t = steps[i], f = base[t] + pos[t];
		const struct vsc_event *e = &p->threads[t].events[pos[t]++];
		rf[f] = e->kind == VSC_WRITE ? COH_NONE : last[e->var];
		if (e->kind != VSC_READ)
			last[e->var] = f;
	}
}

int witness_join_pieces(const struct vsc_program *p, uint32_t *steps, long *pre, struct budget *b)
{
	uint32_t k = program_threads(p), nvars = program_vars(p);
	uint32_t n = (uint32_t)vsc_program_event_count(p);
	uint32_t *base = malloc(((size_t)k + 1) * sizeof(*base));
	uint32_t *rf = malloc(((size_t)n + 1) * sizeof(*rf));
	uint32_t *last = malloc(((size_t)nvars + 1) * sizeof(*last));
	uint32_t *pos = malloc(((size_t)k + 1) * sizeof(*pos));
	int r = -ENOMEM;

	if (base && rf && last && pos) {
		struct coh_sources s = {
			.p = p, .k = k, .n = n, .nvars = nvars, .base = base, .rf = rf
		};
		sources_of_witness(p, steps, base, rf, last, pos);
		r = coh_repair_witness(&s, steps, pre, b);
	}
	free(base);
	free(rf);
	free(last);
	free(pos);
	return r;
}
