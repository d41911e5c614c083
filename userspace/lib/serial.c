/* SPDX-License-Identifier: MIT */
/* A quick try before the search: run threads whole, one after another,
 * each as soon as its whole run is SC from the memory left by those before
 * (first fit, passes over the threads while one more fits). When every
 * thread fits, that order is an SC interleaving with no preemption, so the
 * answer is consistent and the least preemptions 0, for every bound. It
 * decides nothing when it fails. Short-lived worker threads (pools of
 * 10^4-10^5 threads on a few hot variables) are usually decided here, where
 * the search's state keys hold one word per thread. */
#include "serial.h"

#include <errno.h>
#include <stdlib.h>

#define SERIAL_WORK_FACTOR 4 /* give up after this many events per event */

struct undo {
	uint32_t var, old;
};

/* Run thread t whole from mem; on a miss put mem back. 1 when it ran. */
static int run_whole(const struct analysis *a, const struct vsc_program *p, uint32_t t,
		     uint32_t *mem, struct undo *log)
{
	const struct vsc_thread *th = &p->threads[t];
	uint32_t n = 0;

	for (uint32_t i = 0; i < th->length; i++) {
		const struct event_pairs *ep = &a->pairs[t][i];
		uint32_t x = th->events[i].var;
		if (ep->read != PAIR_NONE && mem[x] != ep->read && mem[x] != VALUE_UNDECIDED) {
			while (n > 0) {
				n--;
				mem[log[n].var] = log[n].old;
			}
			return 0;
		}
		log[n++] = (struct undo){ x, mem[x] };
		if (ep->read != PAIR_NONE)
			mem[x] = ep->read;
		if (ep->write != PAIR_NONE)
			mem[x] = ep->write;
	}
	return 1;
}

int serial_witness(const struct analysis *a, const struct vsc_program *p, uint32_t **witness)
{
	uint32_t k = program_threads(p), longest = 1, left = k, n = 0;
	uint64_t work = 0, limit = (uint64_t)SERIAL_WORK_FACTOR * p->event_count + k;
	uint32_t *mem = malloc(((size_t)a->nvars + 1) * sizeof(*mem));
	uint8_t *done = calloc((size_t)k + 1, 1);
	/* the threads in the order they ran: the witness is spelled out only
	 * once found (most calls find none, and it is 4 bytes an event) */
	uint32_t *order = malloc(((size_t)k + 1) * sizeof(*order));
	struct undo *log;
	size_t w = 0;
	int progress = 1, found = 0;

	*witness = NULL;
	for (uint32_t t = 0; t < k; t++)
		if (p->threads[t].length > longest)
			longest = p->threads[t].length;
	log = malloc((size_t)longest * sizeof(*log));
	if (!mem || !done || !order || !log) {
		found = -ENOMEM;
		goto out;
	}
	for (uint32_t v = 0; v < a->nvars; v++)
		mem[v] = a->init[v];
	while (progress && left > 0 && work <= limit) {
		progress = 0;
		for (uint32_t t = 0; t < k && work <= limit; t++) {
			if (done[t])
				continue;
			work += p->threads[t].length + 1;
			if (!run_whole(a, p, t, mem, log))
				continue;
			done[t] = 1;
			left--;
			progress = 1;
			order[n++] = t;
		}
	}
	found = left == 0;
	if (found && !(*witness = malloc((p->event_count + 1) * sizeof(**witness))))
		found = -ENOMEM;
	for (uint32_t j = 0; found == 1 && j < n; j++)
		for (uint32_t i = 0; i < p->threads[order[j]].length; i++)
			(*witness)[w++] = order[j];
out:
	free(mem);
	free(done);
	free(order);
	free(log);
	return found;
}
