/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "solver.h"

#define BUDGET_MAX_TIMEOUT_S 1e9 /* about 31 years */
/* Units of work (about one simple step each) between looks at the clock:
 * a few microseconds, so a deadline is met to well within a millisecond. */
#define BUDGET_WORK_PER_LOOK 4096
/* Bytes a part's search state may move before the count shared by the
 * parts decided at once is written (an error of at most this per part). */
#define BUDGET_MEMORY_STEP ((size_t)1 << 20)

static void report(struct budget *b, const struct timespec *now, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The library never prints: a progress line goes to the caller's callback,
 * at most one a second. Parts decided at once share the second and the
 * callback (called by one of them at a time); their lines name the part. */
static void report(struct budget *b, const struct timespec *now, const char *format, ...)
{
	struct timespec *last = b->share ? &b->share->last_progress : &b->last_progress;
	char line[256];
	int n = 0;
	va_list ap;

	if (b->share)
		pthread_mutex_lock(&b->share->progress_lock);
	if (seconds_between(last, now) >= 1.0) {
		*last = *now;
		if (b->share && b->share->parts > 1)
			n = snprintf(line, sizeof(line), "part %u of %u, %u done: ", b->part + 1,
				     b->share->parts, atomic_load(&b->share->done));
		va_start(ap, format);
		vsnprintf(line + n, sizeof(line) - (size_t)n, format, ap);
		va_end(ap);
		b->on_progress(b->progress_ctx, line);
	}
	if (b->share)
		pthread_mutex_unlock(&b->share->progress_lock);
}

struct timespec deadline_after(double seconds)
{
	struct timespec t = { 0, 0 };
	double whole;

	/* A limit beyond what the clock arithmetic holds (or infinite) is no
	 * limit: converting it to time_t would overflow. */
	if (!(seconds > 0 && seconds < BUDGET_MAX_TIMEOUT_S))
		return t;
	whole = (double)(long)seconds;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += (time_t)whole;
	t.tv_nsec += (long)((seconds - whole) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

double seconds_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return seconds_between(&now, t);
}

void budget_init(struct budget *b, const struct vsc_check_opts *opts)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	*b = (struct budget){ 0 };
	clock_gettime(CLOCK_MONOTONIC, &b->started);
	b->last_progress = b->started;
	b->memory_limit =
		pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : (size_t)1 << 32;
	if (opts->memory_limit)
		b->memory_limit = opts->memory_limit;
	b->progress = opts->progress && opts->on_progress;
	b->on_progress = opts->on_progress;
	b->progress_ctx = opts->progress_ctx;
	b->deadline = deadline_after(opts->timeout_s);
}

int budget_expired(struct budget *b)
{
	return budget_spend(b, 1);
}

int budget_look(struct budget *b)
{
	b->next_look = b->steps;
	return budget_spend(b, 1);
}

int budget_spend(struct budget *b, unsigned long work)
{
	struct timespec now;

	b->steps += work;
	if (b->work_cap && b->steps >= b->work_cap)
		return 1;
	if (b->steps < b->next_look || (b->deadline.tv_sec == 0 && !b->progress && !b->share))
		return 0;
	b->next_look = b->steps + BUDGET_WORK_PER_LOOK;
	if (b->share &&
	    b->part >= atomic_load_explicit(&b->share->cancel_from, memory_order_relaxed))
		return 1; /* another part settled the answer */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (b->progress && b->least_shown > 0)
		report(b, &now, "%.0fs, %s%s%lu steps, least preemptions at least %ld",
		       seconds_between(&b->started, &now), b->phase ? b->phase : "",
		       b->phase ? ": " : "", b->steps, b->least_shown);
	else if (b->progress)
		report(b, &now, "%.0fs, %s%s%lu steps", seconds_between(&b->started, &now),
		       b->phase ? b->phase : "", b->phase ? ": " : "", b->steps);
	return b->deadline.tv_sec != 0 && seconds_between(&b->deadline, &now) >= 0;
}

void budget_least(struct budget *b, long lower)
{
	struct timespec now;

	if (lower <= b->least_shown)
		return;
	b->least_shown = lower;
	if (!b->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	report(b, &now, "%.0fs, least preemptions at least %ld", seconds_between(&b->started, &now),
	       lower);
}

void budget_phase(struct budget *b, const char *phase)
{
	if (!b->inner)
		b->phase = phase;
}

void budget_progress(struct budget *b, const char *what, unsigned long long done,
		     unsigned long long total)
{
	struct timespec now;

	if (!b->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	report(b, &now, "%.0fs, %s %llu/%llu", seconds_between(&b->started, &now), what, done,
	       total);
}

int budget_over_memory(struct budget *b, size_t bytes)
{
	size_t change = bytes - b->memory_held, all; /* unsigned: wraps when it shrank */

	if (!b->share)
		return bytes > b->memory_limit;
	/* called at every search node: the shared count is written only when
	 * this part's bytes moved by a step, and read (cheap) otherwise */
	if (change + BUDGET_MEMORY_STEP <= 2 * BUDGET_MEMORY_STEP)
		return atomic_load_explicit(&b->share->memory, memory_order_relaxed) + change >
		       b->memory_limit;
	all = atomic_fetch_add(&b->share->memory, change) + change;
	b->memory_held = bytes;
	return all > b->memory_limit;
}

int budget_share_init(struct budget_share *share, const struct budget *parent, uint32_t parts)
{
	atomic_init(&share->memory, 0);
	atomic_init(&share->cancel_from, parts);
	atomic_init(&share->done, 0);
	share->parts = parts;
	share->last_progress = parent->last_progress;
	return -pthread_mutex_init(&share->progress_lock, NULL);
}

void budget_share_destroy(struct budget_share *share)
{
	pthread_mutex_destroy(&share->progress_lock);
}

void budget_for_part(struct budget *b, const struct budget *parent, struct budget_share *share,
		     uint32_t part)
{
	*b = *parent;
	b->steps = b->next_look = b->work_cap = 0;
	b->share = share;
	b->part = part;
	b->memory_held = 0;
	b->least_shown = 0; /* the part's own */
}

void budget_part_done(struct budget *b)
{
	atomic_fetch_add(&b->share->done, 1);
	atomic_fetch_sub(&b->share->memory, b->memory_held);
	b->memory_held = 0;
}
