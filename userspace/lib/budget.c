/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "solver.h"

#define BUDGET_MAX_TIMEOUT_S 1e9 /* about 31 years */
/* Units of work (about one simple step each) between looks at the clock:
 * a few microseconds, so a deadline is met to well within a millisecond. */
#define BUDGET_WORK_PER_LOOK 4096

static void report(struct budget *b, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The library never prints: a progress line goes to the caller's callback. */
static void report(struct budget *b, const char *format, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	b->on_progress(b->progress_ctx, line);
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
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

int budget_spend(struct budget *b, unsigned long work)
{
	struct timespec now;

	b->steps += work;
	if (b->work_cap && b->steps >= b->work_cap)
		return 1;
	if (b->steps < b->next_look || (b->deadline.tv_sec == 0 && !b->progress))
		return 0;
	b->next_look = b->steps + BUDGET_WORK_PER_LOOK;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (b->progress && seconds_between(&b->last_progress, &now) >= 1.0) {
		b->last_progress = now;
		report(b, "%.0fs, %s%s%lu steps", seconds_between(&b->started, &now),
		       b->phase ? b->phase : "", b->phase ? ": " : "", b->steps);
	}
	return b->deadline.tv_sec != 0 && seconds_between(&b->deadline, &now) >= 0;
}

void budget_phase(struct budget *b, const char *phase)
{
	b->phase = phase;
}

void budget_progress(struct budget *b, const char *what, unsigned long long done,
		     unsigned long long total)
{
	struct timespec now;

	if (!b->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (seconds_between(&b->last_progress, &now) < 1.0)
		return;
	b->last_progress = now;
	report(b, "%.0fs, %s %llu/%llu", seconds_between(&b->started, &now), what, done, total);
}
