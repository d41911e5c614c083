/* SPDX-License-Identifier: MIT */
/* The default solver (analysis + engine) against the exact search on
 * thousands of small random programs, 1-Writer and not, with RMW and both
 * kinds of init: same verdict with and without a bound, same least number of
 * preemptions, and every witness passes the verifier with the count the
 * solver claims. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "random_program.h"

static struct vsc_result *decide(const struct vsc_program *p, const char *solver, long bound,
				 int minimize)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0, .minimize = minimize,
		 .want_witness = 1, .solver = solver);
	struct vsc_result *res = NULL;
	assert_int_equal(vsc_check(p, &opts, &res), 0);
	return res;
}

static void compare_on(const struct vsc_program *p, const char *solver, long bound, int minimize)
{
	struct vsc_result *want = decide(p, "exact", bound, minimize);
	struct vsc_result *got = decide(p, solver, bound, minimize);
	const uint32_t *w;
	size_t n = vsc_result_witness(got, &w);
	long pre = -1;
	char why[200] = "";

	if (vsc_result_verdict(want) != vsc_result_verdict(got) ||
	    (minimize && vsc_result_preemptions(want) != vsc_result_preemptions(got))) {
		vsc_program_write(p, stderr);
		fail_msg("%s, bound %ld min %d: exact says %d (%ld), %s says %d (%ld)", solver,
			 bound, minimize, vsc_result_verdict(want), vsc_result_preemptions(want),
			 solver, vsc_result_verdict(got), vsc_result_preemptions(got));
	}
	if (vsc_result_verdict(got) == VSC_CONSISTENT) {
		if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)) != 0) {
			vsc_program_write(p, stderr);
			fail_msg("%s: bad witness: %s", solver, why);
		}
		assert_int_equal(pre, vsc_result_preemptions(got));
		if (bound >= 0)
			assert_true(pre <= bound);
	}
	vsc_result_free(want);
	vsc_result_free(got);
}

static void run_shapes(uint64_t seed, int count, int one_writer, unsigned max_threads,
		       unsigned max_events, unsigned min_values, unsigned spread)
{
	int timestamps = (seed >> 28) & 1; /* half the families have @ts hints */

	for (int i = 0; i < count; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % max_threads),
			.events = 1 + (unsigned)(random_next(&seed) % max_events),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = min_values + (unsigned)(random_next(&seed) % spread),
			.one_writer = one_writer,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 8),
			.init_pct = i % 2 ? 60 : 0,
			.timestamps = timestamps,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		compare_on(p, "auto", -1, 0);
		compare_on(p, "auto", (long)(random_next(&seed) % 4), 0);
		compare_on(p, "auto", -1, 1);
		compare_on(p, "auto", 2, 1);
		vsc_program_free(p);
	}
}

static void run_family(uint64_t seed, int count, int one_writer, unsigned max_threads,
		       unsigned max_events)
{
	run_shapes(seed, count, one_writer, max_threads, max_events, 2, 3);
}

/* Two or three values, longer threads: reads with many writes to choose
 * from, where the forced orders of one-writer variables do most of the work. */
static void auto_agrees_on_few_values(void **state)
{
	(void)state;
	run_shapes(0x8888beefULL, 1500, 1, 4, 18, 1, 2);
	run_shapes(0x9999beefULL, 1000, 0, 3, 16, 1, 2);
}

static void auto_agrees_on_one_writer(void **state)
{
	(void)state;
	run_family(0x1111beefULL, 3000, 1, 4, 12);
}

static void auto_agrees_on_many_writers(void **state)
{
	(void)state;
	run_family(0x2222beefULL, 3000, 0, 4, 11);
}

/* The SAT encoding (-p 0 only) on the same kind of programs. */
static void sat_agrees_without_preemption(void **state)
{
	uint64_t seed = 0x5a75a7ULL;
	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % 5),
			.events = 1 + (unsigned)(random_next(&seed) % 12),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = 2 + (unsigned)(random_next(&seed) % 3),
			.one_writer = i % 2,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 8),
			.init_pct = i % 4 < 2 ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		compare_on(p, "sat", 0, 0);
		compare_on(p, "sat", 0, 1);
		compare_on(p, "auto", 0, 0);
		vsc_program_free(p);
	}
}

/* Longer threads, fewer of them: deep searches, many preemptions. */
static void auto_agrees_on_long_threads(void **state)
{
	(void)state;
	run_family(0x3333beefULL, 400, 0, 2, 24);
	run_family(0x4444beefULL, 400, 1, 3, 20);
	run_family(0x5555beefULL, 400, 0, 3, 20);
	run_family(0x7777beefULL, 1500, 1, 4, 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auto_agrees_on_one_writer),
		cmocka_unit_test(auto_agrees_on_many_writers),
		cmocka_unit_test(auto_agrees_on_long_threads),
		cmocka_unit_test(auto_agrees_on_few_values),
		cmocka_unit_test(sat_agrees_without_preemption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
