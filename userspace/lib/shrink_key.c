/* SPDX-License-Identifier: MIT */
/* Where an event falls in time, for cutting a trace into prefixes and
 * windows (shrink_prefix.c, shrink_window.c): its trace line when every
 * thread's lines increase and the threads' lines overlap (a recorded
 * trace: lines follow time), else the fraction of its thread's events
 * before it. Each thread's keys increase, so the events of a thread with
 * keys in a range are a run of it, found by binary search. */
#include "shrink.h"

#define FRACTION_ONE (1ULL << 32)

uint64_t shrink_key_of(const struct shrink_key *k, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &k->p->threads[t];
	return k->by_line ? th->lines[i] : (uint64_t)i * FRACTION_ONE / th->length;
}

/* Whether every thread has trace lines, in increasing order, and the
 * threads' lines overlap (each thread's first line comes before every
 * other thread's last): lines that follow time, as a recorder writes them,
 * not a file written thread after thread. */
static bool lines_increase(const struct vsc_program *p)
{
	uint32_t first_max = 0, last_min = UINT32_MAX;

	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		if (th->length && !th->lines)
			return false;
		for (uint32_t i = 1; i < th->length; i++)
			if (th->lines[i] < th->lines[i - 1])
				return false;
		if (th->length && th->lines[0] > first_max)
			first_max = th->lines[0];
		if (th->length && th->lines[th->length - 1] < last_min)
			last_min = th->lines[th->length - 1];
	}
	return first_max <= last_min;
}

void shrink_key_init(struct shrink_key *k, const struct vsc_program *p)
{
	k->p = p;
	k->by_line = lines_increase(p);
	k->last = k->by_line ? 0 : FRACTION_ONE;
	for (uint32_t t = 0; k->by_line && t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		if (th->length && th->lines[th->length - 1] > k->last)
			k->last = th->lines[th->length - 1];
	}
}

uint32_t shrink_key_count_upto(const struct shrink_key *k, uint32_t t, uint64_t L)
{
	uint32_t lo = 0, hi = k->p->threads[t].length;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (shrink_key_of(k, t, mid) <= L)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t shrink_key_prefix_size(const struct shrink_key *k, uint64_t L)
{
	size_t n = 0;

	for (uint32_t t = 0; t < program_threads(k->p); t++)
		n += shrink_key_count_upto(k, t, L);
	return n;
}

uint64_t shrink_key_for_size(const struct shrink_key *k, size_t size)
{
	uint64_t lo = 0, hi = k->last;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (shrink_key_prefix_size(k, mid) >= size)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
