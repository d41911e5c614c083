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
 * So the scan: windows of 2^14 events by key (shrink_key.c; 2^12 when
 * the key is the recorded time, which puts a violation's events close
 * together), half overlapping, from the start of the trace, each taken
 * with its C' (one check: C' is its own closure,
 * shrink_check_closed_trial); the first that is inconsistent is where the
 * shrinking starts. Then windows four times as long, within SCAN_WHOLES
 * times the whole execution's check in all (SCAN_WHOLES_LONG past
 * SCAN_LONG events, where the prefixes are not tried after it).
 * When none is found, the prefix (shrink_prefix.c) and its tails:
 * tails of the prefix found, 1024 events and four times more each time,
 * since its reason ends near its end. Nothing is assumed of a window: what
 * is kept is a set the solver found inconsistent, with an inconsistent C'. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrink.h"
#include "userspace/util/clock.h"

#define SCAN_FIRST (1u << 14)       /* events of the first windows scanned, */
#define SCAN_FIRST_TIMED (1u << 12) /* (by recorded times: these many) */
#define SCAN_PARTS 8                /* or this part of a shorter trace */
#define SCAN_GROWTH 4               /* each next scan's windows this many times longer */
#define SCAN_WHOLES 4               /* the scans' time: this many whole checks at most */
#define SCAN_LONG (1u << 20)        /* events of a trace past which */
#define SCAN_WHOLES_LONG 1          /* the scans, retries too, take this many */
#define SCAN_PHASE "windows for a proof"
#define RETRIES 16      /* windows a limit stopped, checked again */
#define RETRY_FACTOR 8  /* with this many times the time, */
#define RETRY_WHOLES 2  /* all of them within this many whole checks */
#define TAIL_FIRST 1024 /* events of the first tail of a prefix tried */
#define TAIL_GROWTH 4

/* The events with a key in [lo, hi) into s->scratch (`all` is every
 * event, by thread then index): how many. Costs the window, not `all`. */
static size_t gather_range(struct shrink *s, const struct shrink_key *k, uint64_t lo, uint64_t hi)
{
	size_t m = 0;

	for (uint32_t t = 0; t < program_threads(s->p); t++) {
		uint32_t from = lo ? shrink_key_count_upto(k, t, lo - 1) : 0;
		uint32_t to = shrink_key_count_upto(k, t, hi - 1);
		for (uint32_t i = from; i < to; i++)
			s->scratch[m++] = (struct vsc_event_ref){ t, i };
	}
	return m;
}

/* s->scratch[0..m) without each read it leaves without a source, again
 * while a dropped one was an RMW (what shrink_close_trial does to a mask,
 * at the cost of the window): how many stay. */
static size_t close_window(struct shrink *s, size_t m)
{
	size_t nbad;
	bool wrote;

	do {
		size_t kept = 0, j = 0;
		nbad = source_rule_lacking(s->rule, s->scratch, m, s->bad, m);
		wrote = false;
		for (size_t i = 0; i < m; i++) {
			const struct vsc_event *e =
				&s->p->threads[s->scratch[i].thread].events[s->scratch[i].index];
			if (j < nbad && s->bad[j] == i) {
				j++;
				wrote |= e->kind == VSC_RMW;
				continue;
			}
			s->scratch[kept++] = s->scratch[i];
		}
		m = kept;
	} while (wrote && nbad);
	return m;
}

/* The window [lo, hi), closed, with its C', checked within limit_s: 1
 * when it passes (then C' is the kept set, compacted), 0, or -errno. */
static int try_window(struct shrink *s, const struct shrink_key *k, uint64_t lo, uint64_t hi,
		      double limit_s)
{
	double started = clock_now_s();
	size_t m = close_window(s, gather_range(s, k, lo, hi));
	int r;

	shrink_progress(s, SCAN_PHASE);
	if (m == 0 || (r = shrink_check_closure_of(s, s->scratch, m, limit_s)) <= 0)
		return m == 0 ? 0 : r;
	s->trial_limit = 4 * (clock_now_s() - started) + TRIAL_MIN_S;
	r = shrink_keep_trial(s);
	return r ? r : 1;
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

/* a + b, or UINT64_MAX when that wraps: recorded times may lie anywhere
 * in 64 bits, and a window past the last key ends at the last key. */
static uint64_t saturating_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One scan of windows of `size` events from the start, within `end`:
 * 1 when one passed, 0, or -errno. The windows a limit stopped are
 * checked again with RETRY_FACTOR times the time at the end, within
 * retry_s seconds (0: within `end`) (the reason
 * may be where a closure is hard to refute: 13 of 280 such closures of
 * a 2.3 M-event recording went past their limit on the loaded machine). */
static int scan_windows(struct shrink *s, const struct shrink_key *k, size_t size, double end,
			double retry_s)
{
	uint64_t width = (uint64_t)(((double)k->last + 1) * (double)size / (double)s->n) + 2;
	uint64_t retry[RETRIES];
	double limit = 8 * s->whole_s * (double)size / (double)s->n + TRIAL_MIN_S;
	size_t retries = 0;
	int r = 0;

	for (uint64_t lo = 0; !r; lo += width / 2) {
		unsigned long undecided = s->undecided;
		if (s->gave_up || clock_now_s() > end)
			break;
		r = try_window(s, k, lo, saturating_add(lo, width), limit);
		if (r == 0 && s->undecided > undecided && retries < RETRIES)
			retry[retries++] = lo;
		if (k->last - lo < width / 2)
			break; /* the next would start past the last key (or wrap) */
	}
	end = retry_s > 0 ? clock_now_s() + retry_s : end;
	for (size_t i = 0; i < retries && !r && !s->gave_up && clock_now_s() <= end; i++) {
		r = try_window(s, k, retry[i], saturating_add(retry[i], width),
			       RETRY_FACTOR * limit);
	}
	return r;
}

bool shrink_scan_long(const struct shrink *s)
{
	return s->p->event_count > SCAN_LONG;
}

int shrink_scan(struct shrink *s)
{
	struct shrink_key k;
	bool lengthy = shrink_scan_long(s);
	double wholes = lengthy ? SCAN_WHOLES_LONG : SCAN_WHOLES;
	double end = clock_now_s() + wholes * s->whole_s + TRIAL_MIN_S;
	double retry_s = lengthy ? 0 : RETRY_WHOLES * s->whole_s + TRIAL_MIN_S;
	size_t first;
	int r = 0;

	if (!s->closure || s->n != s->p->event_count)
		return 0;
	shrink_key_init(&k, s->p, true);
	first = k.kind == KEY_TIME ? SCAN_FIRST_TIMED : SCAN_FIRST;
	for (size_t size = s->n / SCAN_PARTS < first ? s->n / SCAN_PARTS + 1 : first;
	     size * 2 <= s->n && !r && clock_now_s() <= end; size *= SCAN_GROWTH)
		r = scan_windows(s, &k, size, end, retry_s);
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
	shrink_key_init(&k, s->p, false); /* the prefix's key */
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
