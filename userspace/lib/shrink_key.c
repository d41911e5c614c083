/* SPDX-License-Identifier: MIT */
/* Where an event falls in time, for cutting a trace into prefixes and
 * windows (shrink_prefix.c, shrink_window.c): its recorded time (@ts, from
 * the earliest) when every event has one, each thread's times increase
 * and the threads' times overlap; else its trace line when the lines do
 * (a recorded trace: lines follow time); else the fraction of its
 * thread's events before it. Each thread's keys increase, so the events
 * of a thread with keys in a range are a run of it, found by binary
 * search.
 *
 * Times first: a recorder writes each thread's events in batches (256
 * events a batch), so lines follow time only batch by batch. The lost
 * update of a 2.3 M-event relaxed Peterson recording spans 54,000 lines
 * (its two threads' batches far apart in the file) and 20 microseconds:
 * its window by times holds 143 events where by lines it needed more
 * than 2^16. */
#include "shrink.h"

#define FRACTION_ONE (1ULL << 32)

uint64_t shrink_key_of(const struct shrink_key *k, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &k->p->threads[t];

	switch (k->kind) {
	case KEY_TIME:
		return th->ts[i] - k->first;
	case KEY_LINE:
		return th->lines[i];
	default:
		return (uint64_t)i * FRACTION_ONE / th->length;
	}
}

/* Event i of thread th as a time: its @ts, or its line; 0 when it has none. */
static uint64_t when(const struct vsc_thread *th, enum shrink_key_kind kind, uint32_t i)
{
	if (kind == KEY_TIME)
		return th->ts ? th->ts[i] : 0;
	return th->lines ? th->lines[i] : 0;
}

/* Whether every event has a time of that kind (a @ts, or a line), each
 * thread's increase and the threads' overlap (each thread's first comes
 * before every other thread's last): times that follow the run, as a
 * recorder writes them, not a file written thread after thread. Sets the
 * least and the largest. */
static bool follows_time(const struct vsc_program *p, enum shrink_key_kind kind, uint64_t *least,
			 uint64_t *most)
{
	uint64_t first_max = 0, last_min = UINT64_MAX;

	*least = UINT64_MAX;
	*most = 0;
	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		if (!th->length)
			continue;
		if (when(th, kind, 0) == 0)
			return false;
		for (uint32_t i = 1; i < th->length; i++)
			if (when(th, kind, i) < when(th, kind, i - 1))
				return false;
		first_max = when(th, kind, 0) > first_max ? when(th, kind, 0) : first_max;
		*least = when(th, kind, 0) < *least ? when(th, kind, 0) : *least;
		last_min = when(th, kind, th->length - 1) < last_min
				   ? when(th, kind, th->length - 1)
				   : last_min;
		*most = when(th, kind, th->length - 1) > *most ? when(th, kind, th->length - 1)
							       : *most;
	}
	return *most > 0 && first_max <= last_min;
}

void shrink_key_init(struct shrink_key *k, const struct vsc_program *p, bool by_time)
{
	uint64_t least, most;

	k->p = p;
	k->first = 0;
	if (by_time && follows_time(p, KEY_TIME, &least, &most)) {
		k->kind = KEY_TIME;
		k->first = least;
		k->last = most - least;
	} else if (follows_time(p, KEY_LINE, &least, &most)) {
		k->kind = KEY_LINE;
		k->last = most;
	} else {
		k->kind = KEY_FRACTION;
		k->last = FRACTION_ONE;
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
