/* SPDX-License-Identifier: MIT */
/* The refutation of source_orders.c (the rows and the splits of
 * source_splits.c) against the exact search: on small random programs with
 * several writers per variable, few values, RMWs and both kinds of init,
 * half of them with times (the rounds then go in the order of the times:
 * before, no program here had them, and rounds by the times that shared
 * one thread's last accesses among all refuted SC programs unseen),
 * every program it refutes has no SC interleaving at all (the exact solver,
 * no bound), and it refutes nine in ten of those that have none (the rows
 * alone: 515 of 578, below that). VSC_SOURCE_ORDERS_SEED and
 * VSC_SOURCE_ORDERS_COUNT change the run (offline stress). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis.h"
#include "random_program.h"
#include "source_orders.h"
#include "testutil.h"

#define PROGRAMS 6000

struct tally {
	int refuted, inconsistent, wrong;
};

static void check_program(const struct vsc_program *p, struct tally *n)
{
	struct vsc_result *res = decide(p, "exact", -1, 0);
	enum vsc_verdict truth = vsc_result_verdict(res);
	struct analysis a;
	int r;

	assert_int_equal(analysis_build(&a, p), 0);
	r = a.refuted ? SOURCE_ORDERS_OPEN : source_orders_refute(p, &a, NULL);
	assert_true(r == SOURCE_ORDERS_OPEN || r == SOURCE_ORDERS_REFUTED);
	if (truth == VSC_INCONSISTENT && !a.refuted)
		n->inconsistent++;
	if (r == SOURCE_ORDERS_REFUTED) {
		n->refuted++;
		if (truth != VSC_INCONSISTENT) {
			n->wrong++;
			dump_program("source orders refute an SC program", p);
		}
	}
	analysis_free(&a);
	vsc_result_free(res);
}

static void refutes_only_what_exact_refutes(void **state)
{
	uint64_t seed = test_env_number("VSC_SOURCE_ORDERS_SEED", 0x5043ce5UL);
	int programs = (int)test_env_number("VSC_SOURCE_ORDERS_COUNT", PROGRAMS);
	struct tally n = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 2 + (unsigned)(random_next(&seed) % 4),
			.events = 3 + (unsigned)(random_next(&seed) % 20),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = 1 + (unsigned)(random_next(&seed) % 3),
			.one_writer = 0,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 12),
			.init_pct = i % 2 ? 60 : 0,
			.timestamps = i % 4 < 2, /* the rounds in the order of the times */
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		check_program(p, &n);
		vsc_program_free(p);
	}
	printf("source orders: %d of %d programs refuted, %d inconsistent beyond the analysis\n",
	       n.refuted, programs, n.inconsistent);
	assert_int_equal(n.wrong, 0);
	assert_true(n.refuted * 10 > n.inconsistent * 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refutes_only_what_exact_refutes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
