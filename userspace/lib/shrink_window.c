/* SPDX-License-Identifier: MIT */
/* Windows of a long trace, where the shrinking looks for a core that is a
 * proof (explain.c, "shrinking for a proof").
 *
 * The first core of a recorded relaxed Peterson trace is cut from a short
 * inconsistent prefix, and is often an artifact of it: the prefix dropped
 * the later writes its reads could also see, so its closure C' is
 * consistent. The trace's reason (a lost update on the counter inside two
 * threads' handshakes) lies elsewhere: at line 87,800 of 158,528 events,
 * at 60% of a 2.3 M-event one. Looking for it by prefixes pays checks of
 * prefixes of up to the whole trace; a window of its events around it
 * holds it too (C' is read off the orders of the whole trace, so a window
 * keeps the narrowing), and costs what the window does.
 *
 * So the scan: windows of 2^14 events by key (shrink_key.c), half
 * overlapping, from the start of the trace, each taken with its C' (one
 * check: C' is its own closure, shrink_check_closed_trial); the first that
 * is inconsistent is where the shrinking starts. Then windows four times
 * as long, within SCAN_WHOLES times the whole execution's check in all.
 * When none is found, the prefix (shrink_prefix.c) and its tails:
 * tails of the prefix found, 1024 events and four times more each time,
 * since its reason ends near its end. Nothing is assumed of a window: what
 * is kept is a set the solver found inconsistent, with an inconsistent C'. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrink.h"
#include "userspace/util/clock.h"

#define SCAN_FIRST (1u << 14) /* events of the first windows scanned, */
#define SCAN_PARTS 8          /* or this part of a shorter trace */
#define SCAN_GROWTH 4         /* each next scan's windows this many times longer */
#define SCAN_WHOLES 4         /* the scans' time: this many whole checks at most */
#define SCAN_PHASE "windows for a proof"
#define RETRIES 16      /* windows a limit stopped, checked again */
#define RETRY_FACTOR 8  /* with this many times the time, */
#define RETRY_WHOLES 2  /* all of them within this many whole checks */
#define TAIL_FIRST 1024 /* events of the first tail of a prefix tried */
#define TAIL_GROWTH 4

/* s->trial: the events with a key in [lo, hi) (`all` is every event). */
static void mark_range(struct shrink *s, const struct shrink_key *k, uint64_t lo, uint64_t hi)
{
	size_t at = 0;

	memset(s->trial, 0, s->n);
	for (uint32_t t = 0; t < program_threads(s->p); t++) {
		uint32_t from = lo ? shrink_key_count_upto(k, t, lo - 1) : 0;
		uint32_t to = shrink_key_count_upto(k, t, hi - 1);
		if (to > from)
			memset(s->trial + at + from, 1, to - from);
		at += s->p->threads[t].length;
	}
}

/* s->trial closed, with its C', checked within limit_s: 1 when it passes
 * (then it is the kept set, compacted), 0, or -errno. */
static int try_closed(struct shrink *s, double limit_s)
{
	double started;
	int r;

	if (shrink_close_trial(s) == 0)
		return 0;
	started = clock_now_s();
	r = s->closure ? shrink_check_closed_trial(s, limit_s) : shrink_check_trial(s, limit_s);
	if (r <= 0)
		return r;
	s->trial_limit = 4 * (clock_now_s() - started) + TRIAL_MIN_S;
	r = shrink_keep_trial(s);
	return r ? r : 1;
}

/* One scan of windows of `size` events from the start, within `end`:
 * 1 when one passed, 0, or -errno. The windows a limit stopped are
 * checked again with RETRY_FACTOR times the time at the end, within
 * RETRY_WHOLES whole checks (the reason
 * may be where a closure is hard to refute: 13 of 280 such closures of
 * a 2.3 M-event recording went past their limit on the loaded machine). */
static int scan_windows(struct shrink *s, const struct shrink_key *k, size_t size, double end)
{
	uint64_t width = (k->last + 1) * size / s->n + 2, retry[RETRIES];
	double limit = 8 * s->whole_s * (double)size / (double)s->n + TRIAL_MIN_S;
	size_t retries = 0;
	int r = 0;

	for (uint64_t lo = 0; lo <= k->last && !r; lo += width / 2) {
		unsigned long undecided = s->undecided;
		if (s->gave_up || clock_now_s() > end)
			break;
		mark_range(s, k, lo, lo + width);
		shrink_progress(s, SCAN_PHASE);
		r = try_closed(s, limit);
		if (r == 0 && s->undecided > undecided && retries < RETRIES)
			retry[retries++] = lo;
	}
	end = clock_now_s() + RETRY_WHOLES * s->whole_s + TRIAL_MIN_S;
	for (size_t i = 0; i < retries && !r && !s->gave_up && clock_now_s() <= end; i++) {
		mark_range(s, k, retry[i], retry[i] + width);
		shrink_progress(s, SCAN_PHASE);
		r = try_closed(s, RETRY_FACTOR * limit);
	}
	return r;
}

int shrink_scan(struct shrink *s)
{
	struct shrink_key k;
	double end = clock_now_s() + SCAN_WHOLES * s->whole_s + TRIAL_MIN_S;
	int r = 0;

	if (!s->closure || s->n != s->p->event_count)
		return 0;
	shrink_key_init(&k, s->p);
	for (size_t size = s->n / SCAN_PARTS < SCAN_FIRST ? s->n / SCAN_PARTS + 1 : SCAN_FIRST;
	     size * 2 <= s->n && !r && clock_now_s() <= end; size *= SCAN_GROWTH)
		r = scan_windows(s, &k, size, end);
	return r;
}

static int descending(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* The kept events' keys, largest first, into *keys: how many. */
static size_t kept_keys(const struct shrink *s, const struct shrink_key *k, uint64_t *keys)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i])
			keys[m++] = shrink_key_of(k, s->all[i].thread, s->all[i].index);
	qsort(keys, m, sizeof(*keys), descending);
	return m;
}

int shrink_tail(struct shrink *s)
{
	struct shrink_key k;
	uint64_t *keys = malloc((s->n ? s->n : 1) * sizeof(*keys));
	size_t m;
	int r = 0;

	if (!keys)
		return -ENOMEM;
	shrink_key_init(&k, s->p);
	m = kept_keys(s, &k, keys);
	for (size_t size = TAIL_FIRST; size * 2 <= m && !s->gave_up && !r; size *= TAIL_GROWTH) {
		for (size_t i = 0; i < s->n; i++)
			s->trial[i] = s->keep[i] &&
				      shrink_key_of(&k, s->all[i].thread, s->all[i].index) >=
					      keys[size - 1];
		shrink_progress(s, "the end of the prefix");
		r = try_closed(s, s->trial_limit);
	}
	free(keys);
	return r;
}
