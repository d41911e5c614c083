/* SPDX-License-Identifier: MIT */
/* Vector clocks of the forced orders source_narrow.c walks: what each
 * event has forced before and after it in every thread, in O(threads) a
 * read instead of a walk over the orders.
 *
 * The orders are program order and the reads-from orders (a read whose one
 * candidate is another thread's write comes after it). A clock is kept
 * only where it changes: before an event (t, i), every thread's last event
 * forced before it is the one at t's last incoming order at or before i
 * (program order carries it on), and after it, the first event forced
 * after it is the one at t's first outgoing order at or after i. So the
 * clocks cost threads x orders words each way, not threads x events. They
 * are computed in an order that respects the orders: incoming ones from
 * the first event on (an order's source must be placed first), outgoing
 * ones from the last (its target's later orders first). When neither can
 * go on, the orders have a cycle: then no SC interleaving exists, and the
 * walks are used as before (the clocks are not built). Nor are they past
 * CLOCK_WORDS words each way (many threads and many orders).
 *
 * The frontiers they give are the walks' exactly: each walk reaches, in
 * each thread, the last event before (the first after) along a chain of
 * these orders, which is what the clock at that point records, by
 * induction along the order they are computed in. tests/unit/test_narrow.c
 * compares the narrowing with narrow_ref.c's transitive closure either way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_narrow.h"
#include "userspace/util/sorted.h"

#define CLOCK_WORDS (1u << 24) /* per direction; beyond, the walks */
#define NONE UINT32_MAX

static struct vsc_event_ref ref_of(const struct source_narrow *n, uint32_t f)
{
	uint32_t t = last_at_most(n->rule->base, 0, program_threads(n->p), f);
	return (struct vsc_event_ref){ t, f - n->rule->base[t] };
}

/* How many events of thread v are forced before or at (t, i). */
uint32_t source_clock_before(const struct source_narrow *n, uint32_t t, uint32_t i, uint32_t v)
{
	uint32_t k = program_threads(n->p), j;

	if (v == t)
		return i + 1;
	j = first_at_least(n->in_at, n->in_off[t], n->in_off[t + 1], i + 1);
	return j == n->in_off[t] ? 0 : n->in_clock[(size_t)(j - 1) * k + v];
}

/* The first event of thread v forced at or after (t, i): an index, or NONE. */
uint32_t source_clock_after(const struct source_narrow *n, uint32_t t, uint32_t i, uint32_t v)
{
	uint32_t k = program_threads(n->p), j;

	if (v == t)
		return i;
	j = first_at_least(n->out_at, n->out_off[t], n->out_off[t + 1], i);
	return j == n->out_off[t + 1] ? NONE : n->out_clock[(size_t)j * k + v];
}

/* Incoming orders in an order that places each source first: 0, or 1 on
 * a cycle. */
static int clocks_before(struct source_narrow *n, uint32_t *next)
{
	uint32_t k = program_threads(n->p), done = 0;
	bool moved = true;

	for (uint32_t t = 0; t < k; t++)
		next[t] = n->in_off[t];
	while (moved) {
		moved = false;
		for (uint32_t t = 0; t < k; t++) {
			for (; next[t] < n->in_off[t + 1]; next[t]++, done++, moved = true) {
				uint32_t j = next[t], *row = n->in_clock + (size_t)j * k;
				struct vsc_event_ref s = ref_of(n, n->in_from[j]);
				bool placed = next[s.thread] == n->in_off[s.thread + 1] ||
					      n->in_at[next[s.thread]] > s.index;
				if (!placed)
					break;
				if (j > n->in_off[t])
					memcpy(row, row - k, k * sizeof(*row));
				else
					memset(row, 0, k * sizeof(*row));
				for (uint32_t v = 0; v < k; v++) {
					uint32_t c = source_clock_before(n, s.thread, s.index, v);
					row[v] = c > row[v] ? c : row[v];
				}
				row[t] = n->in_at[j] + 1;
			}
		}
	}
	return done == n->in_off[k] ? 0 : 1;
}

/* Outgoing orders from the last, each after its target's later ones: 0,
 * or 1 on a cycle. */
static int clocks_after(struct source_narrow *n, uint32_t *left)
{
	uint32_t k = program_threads(n->p), done = 0;
	bool moved = true;

	for (uint32_t t = 0; t < k; t++)
		left[t] = n->out_off[t + 1];
	while (moved) {
		moved = false;
		for (uint32_t u = 0; u < k; u++) {
			for (; left[u] > n->out_off[u]; left[u]--, done++, moved = true) {
				uint32_t j = left[u] - 1, *row = n->out_clock + (size_t)j * k;
				struct vsc_event_ref d = ref_of(n, n->out_to[j]);
				bool ready = left[d.thread] == n->out_off[d.thread] ||
					     n->out_at[left[d.thread] - 1] < d.index;
				if (!ready)
					break;
				if (j + 1 < n->out_off[u + 1])
					memcpy(row, row + k, k * sizeof(*row));
				else
					memset(row, 0xff, k * sizeof(*row));
				for (uint32_t v = 0; v < k; v++) {
					uint32_t a = source_clock_after(n, d.thread, d.index, v);
					row[v] = a < row[v] ? a : row[v];
				}
				row[u] = n->out_at[j];
			}
		}
	}
	return done == n->out_off[k] ? 0 : 1;
}

int source_clocks_build(struct source_narrow *n)
{
	uint32_t k = program_threads(n->p), *scratch;
	size_t in = (size_t)n->in_off[k] * k, out = (size_t)n->out_off[k] * k;
	int r;

	if (in > CLOCK_WORDS || out > CLOCK_WORDS)
		return 1;
	n->in_clock = malloc((in ? in : 1) * sizeof(uint32_t));
	n->out_clock = malloc((out ? out : 1) * sizeof(uint32_t));
	scratch = malloc((k ? k : 1) * sizeof(uint32_t));
	r = n->in_clock && n->out_clock && scratch ? 0 : -ENOMEM;
	if (!r)
		r = clocks_before(n, scratch);
	if (!r)
		r = clocks_after(n, scratch);
	free(scratch);
	if (r) {
		free(n->in_clock);
		free(n->out_clock);
		n->in_clock = n->out_clock = NULL;
	}
	return r;
}
