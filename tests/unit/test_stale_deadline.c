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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phases_stop_at_a_deadline_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
