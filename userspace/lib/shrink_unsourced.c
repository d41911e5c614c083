/* SPDX-License-Identifier: MIT */
/* A start for the shrinking for a proof from a read that has no
 * candidate source in the whole trace (core_sources.c): no write of its
 * value by another thread, its own thread's last write of the variable
 * before it (h) writes another value, or there is no h and the initial
 * value cannot be it. No interleaving, at any bound, gives that read its
 * value, so the trace is inconsistent, and the read with h and a write of
 * its value (when the trace has them) shows it: the set keeps the source
 * rule (core_sources.c, shows_no_source), and its C' is the set itself
 * (the read has no candidate to put back, the others are writes).
 *
 * A generated trace with a stale read and few values (`gen sc --writers 1
 * --values 4 --stale 1`: the writer itself reads an older value, which it
 * wrote again later) has such a read; the first core is cut from a short
 * prefix and is an artifact of it (C' of 7,763 events, consistent on a
 * 2 M-event trace), and windows find the read only after a scan of most
 * of the trace (12 s against a 0.07 s verdict). Looking for the read
 * costs one pass over the events. Nothing is assumed of the set: it is
 * checked, with its C', like any start. */
#include <stdlib.h>

#include "shrink.h"

#define UNSOURCED_TRIED 4 /* such reads checked at most */

/* A write of pair q by thread t other than event i: the first after i,
 * else the last before; UINT32_MAX when t has none. */
static uint32_t own_write_of(const struct shrink *s, uint32_t t, uint32_t i, uint32_t q)
{
	const struct event_pairs *ep = s->a->pairs[t];
	uint32_t n = s->p->threads[t].length;

	for (uint32_t j = i + 1; j < n; j++)
		if (ep[j].write == q)
			return j;
	for (uint32_t j = i; j-- > 0;)
		if (ep[j].write == q)
			return j;
	return UINT32_MAX;
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = ((const struct vsc_event_ref *)a)->index;
	uint32_t y = ((const struct vsc_event_ref *)b)->index;

	return (x > y) - (x < y);
}

/* The read e, its h and a write of its value (all of e's thread, as no
 * other thread writes the value), sorted, into set: how many. */
static size_t showing_set(const struct shrink *s, struct vsc_event_ref e,
			  struct vsc_event_ref set[3])
{
	uint32_t h = source_rule_hider(s->rule, e);
	uint32_t w = own_write_of(s, e.thread, e.index, s->a->pairs[e.thread][e.index].read);
	size_t m = 0;

	set[m++] = e;
	if (h != NONE_HIDER)
		set[m++] = (struct vsc_event_ref){ e.thread, h };
	if (w != UINT32_MAX)
		set[m++] = (struct vsc_event_ref){ e.thread, w };
	qsort(set, m, sizeof(*set), by_index);
	return m;
}

int shrink_unsourced(struct shrink *s)
{
	double limit = s->whole_s + TRIAL_MIN_S;
	unsigned tried = 0;
	int r = 0;

	if (!s->closure || s->n != s->p->event_count)
		return 0;
	for (uint32_t t = 0; t < program_threads(s->p) && !r; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length && !r; i++) {
			struct vsc_event_ref e = { t, i }, set[3];
			size_t m;
			if (!source_rule_unsourced(s->rule, e))
				continue;
			if (tried++ == UNSOURCED_TRIED || s->gave_up)
				return 0;
			m = showing_set(s, e, set);
			shrink_progress(s, "a read without a source");
			if ((r = shrink_check_closure_of(s, set, m, limit)) > 0 &&
			    (r = shrink_keep_trial(s)) == 0)
				r = 1;
		}
	return r;
}
