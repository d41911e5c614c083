/* SPDX-License-Identifier: MIT */
/* The phases auto runs one after another on a program with no bound (the
 * run by the recorded times and its windows, the source orders, the cut
 * and the refutation at a stale read) stop at once when the deadline has
 * passed, even when the phase before has just looked at the clock: the
 * budget looks again only every 4,096 units, so each of them set up its
 * tables over the whole program and ran its first tries (on a recorded
 * 5.6 M-event Peterson's lock, `--timeout 10` answered after 14 s, 1.9 s
 * of them in the cut's start and 1.6 s in the refutation's).
 *
 * On small random programs with the recorded times, each phase decides
 * some with no deadline (a witness, a refutation), so that the test can
 * tell; after a deadline just seen it decides none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analysis.h"
#include "hint_run.h"
#include "part_solvers.h"
#include "random_program.h"
#include "solver.h"
#include "source_orders.h"
#include "stale_cut.h"
#include "stale_refute.h"
#include "testutil.h"
#include "time_windows.h"

#define PROGRAMS 4000

enum phase {
	HINT_RUN,
	TIME_WINDOWS,
	SOURCE_ORDERS,
	STALE_CUT,
	STALE_REFUTE,
	PHASES
};

static const char *const names[PHASES] = { "run by the times", "windows by the times",
					   "source orders", "cut at a stale read",
					   "refutation at a stale read" };

/* No deadline (stopped 0), or one long past that a phase before has just
 * seen (stopped 1): its budget_spend() said stop, and the next look at the
 * clock is 4,096 units on. */
static void budget_for(struct budget *b, int stopped)
{
	memset(b, 0, sizeof(*b));
	b->memory_limit = (size_t)1 << 30;
	if (!stopped)
		return;
	b->deadline.tv_sec = 1; /* the monotonic clock is far past it */
	assert_int_equal(budget_spend(b, 1), 1);
}

/* Did the phase decide p (a witness, a refutation) under budget b? */
static int decides(enum phase ph, const struct vsc_program *p, const struct analysis *a,
		   struct budget *b)
{
	uint32_t *w = NULL;
	long pre = -1;
	int r = 0;

	switch (ph) {
	case HINT_RUN:
		assert_int_equal(hint_run(p, a, NULL, b, &w, &pre), 0);
		r = w != NULL;
		break;
	case TIME_WINDOWS:
		assert_int_equal(time_windows_run(p, a, b, &w, &pre), 0);
		r = w != NULL;
		break;
	case SOURCE_ORDERS:
		r = !a->refuted && source_orders_refute(p, a, b) == SOURCE_ORDERS_REFUTED;
		break;
	case STALE_CUT:
		r = stale_cut_witness(p, b, 1UL << 30, exact_part_solve, &w, &pre) ==
		    STALE_CUT_FOUND;
		break;
	default:
		r = stale_refute(p, b, 1UL << 30, exact_part_solve) == STALE_REFUTE_REFUTED;
		break;
	}
	if (w)
		assert_int_equal(vsc_witness_verify(p, w, p->event_count, NULL, NULL, 0), 0);
	free(w);
	return r;
}

static void phases_stop_at_a_deadline_seen(void **state)
{
	uint64_t seed = 0xdead11eULL;
	int freely[PHASES] = { 0 }, stopped[PHASES] = { 0 };

	(void)state;
	for (int i = 0; i < PROGRAMS; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 8, 1, 2);
		struct vsc_program *p;
		struct analysis a;
		struct budget b;

		shape.timestamps = 1;
		p = random_program(&seed, &shape);
		assert_non_null(p);
		assert_int_equal(analysis_build(&a, p), 0);
		for (int ph = 0; ph < PHASES; ph++) {
			budget_for(&b, 0);
			if (!decides(ph, p, &a, &b))
				continue;
			freely[ph]++;
			budget_for(&b, 1);
			if (decides(ph, p, &a, &b) && !stopped[ph]++)
				dump_program(names[ph], p);
		}
		analysis_free(&a);
		vsc_program_free(p);
	}
	for (int ph = 0; ph < PHASES; ph++)
		printf("%s: decides %d of %d programs, %d after the deadline\n", names[ph],
		       freely[ph], PROGRAMS, stopped[ph]);
	for (int ph = 0; ph < PHASES; ph++) {
		assert_true(freely[ph] > 0); /* the test can tell */
		assert_int_equal(stopped[ph], 0);
	}
}

/* Thread t's next event, recorded at `at`. */
static void put(struct vsc_program *p, unsigned t, uint32_t kind, unsigned x, int64_t v,
		uint64_t at)
{
	struct vsc_event e = { .kind = kind, .var = x, .value = v };

	assert_int_equal(vsc_program_append(p, t, &e, at), 0);
}

/* A program on which the run by the recorded times repairs often, each
 * repair undoing one step, while `waiters` threads wait to read a value of
 * y (on_flag: of a flag nobody else touches) that only the last event
 * writes: B writes x twice a round and then waits for C's y, stamped long
 * before C reads x, so it always writes x once too often; C reads both and
 * writes y. Consistent. */
static struct vsc_program *repairing_program(unsigned waiters, unsigned rounds, int on_flag)
{
	unsigned b = waiters, c = waiters + 1, x = 0, y = 1, waited = on_flag ? 2 : y;
	struct vsc_program *p = named_program(waiters + 2, 3);

	assert_non_null(p);
	for (unsigned v = 0; v < 3; v++)
		vsc_program_set_init(p, v, VSC_INIT_KNOWN, 0);
	for (unsigned t = 0; t < waiters; t++)
		put(p, t, VSC_READ, waited, rounds + 1, 1);
	for (unsigned r = 1; r <= rounds; r++) {
		uint64_t at = 100 * (uint64_t)r;
		put(p, b, VSC_WRITE, x, 2 * r - 1, at + 1);
		put(p, b, VSC_WRITE, x, 2 * r, at + 2);
		put(p, b, VSC_READ, y, r, at + 3);
		put(p, c, VSC_READ, x, 2 * r - 1, at + 50);
		put(p, c, VSC_READ, x, 2 * r, at + 51);
		put(p, c, VSC_WRITE, y, r, at + 52);
	}
	put(p, c, VSC_WRITE, waited, rounds + 1, 100 * (uint64_t)rounds + 99);
	return p;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* CPU seconds hint_run() takes on the repairing program (60 waiters,
 * 200,000 rounds: 1.2 M events), with a deadline `seconds` away (0: none). */
static double repairing_run(int on_flag, double seconds)
{
	struct vsc_program *p = repairing_program(60, 200000, on_flag);
	struct analysis a;
	struct budget b;
	uint32_t *w = NULL;
	long pre = -1;
	double took;

	assert_int_equal(analysis_build(&a, p), 0);
	budget_for(&b, 0);
	b.deadline = deadline_after(seconds);
	took = cpu_seconds();
	assert_int_equal(hint_run(p, &a, NULL, &b, &w, &pre), 0);
	took = cpu_seconds() - took;
	if (w)
		assert_int_equal(vsc_witness_verify(p, w, p->event_count, NULL, NULL, 0), 0);
	free(w);
	analysis_free(&a);
	vsc_program_free(p);
	return took;
}

/* The run by the recorded times keeps a deadline through its repairs:
 * each looks back along the run for every waiting thread, up to 65,536
 * steps, and the budget was charged a unit a step of the run, none for
 * the looks (here the run gives up after 28-40 s; with a deadline 0.2 s
 * away it looked at the clock once, and stopped after 5 s CPU). */
static void repairs_keep_the_deadline(void **state)
{
	double took = repairing_run(0, 0.2);

	(void)state;
	printf("the run by the times, 60 threads waiting: %.2f s CPU, the deadline 0.2 s away\n",
	       took);
	assert_true(took < 1.0);
}

/* A repair looks back along the waited variable's steps alone: a flag not
 * written for a long time costs nothing (28-37 s CPU when every step back
 * was looked at, 0.5 s now). */
static void repairs_look_along_the_variable(void **state)
{
	double took = repairing_run(1, 0);

	(void)state;
	printf("the run by the times, 60 threads waiting on a flag: %.2f s CPU\n", took);
	assert_true(took < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phases_stop_at_a_deadline_seen),
		cmocka_unit_test(repairs_keep_the_deadline),
		cmocka_unit_test(repairs_look_along_the_variable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
