/* SPDX-License-Identifier: MIT */
/* The witness cut at a stale read (stale_cut.c) against the exact search,
 * on small random programs whose variables have one or two writer threads
 * each (3-5 threads, few values, RMWs, `init ?` and known inits, wrong
 * reads): every witness it returns is an SC interleaving of the whole
 * program (the verifier here, again, and the exact solver says consistent,
 * with no fewer preemptions than its least), and it finds some, with the
 * halves decided by the exact solver and by auto. It never refutes.
 * VSC_STALE_CUT_SEED and VSC_STALE_CUT_COUNT change the run (offline
 * stress). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "part_solvers.h"
#include "random_program.h"
#include "solver.h"
#include "stale_cut.h"
#include "testutil.h"

#define PROGRAMS 8000

struct tally {
	int found, consistent, wrong;
};

/* One cut's answer checked against the truth (exact, no bound: verdict;
 * --min: least). */
static void check_cut(const struct vsc_program *p, writer_group_solve_fn solve,
		      enum vsc_verdict truth, long least, struct tally *n)
{
	struct budget b;
	uint32_t *witness = NULL;
	long preemptions = -1, verified = -1;
	int r;

	memset(&b, 0, sizeof(b));
	b.memory_limit = (size_t)1 << 30;
	r = stale_cut_witness(p, &b, 1UL << 30, solve, &witness, &preemptions);
	assert_true(r == STALE_CUT_OPEN || r == STALE_CUT_FOUND);
	if (r == STALE_CUT_OPEN) {
		assert_null(witness);
		return;
	}
	n->found++;
	if (truth != VSC_CONSISTENT ||
	    vsc_witness_verify(p, witness, p->event_count, &verified, NULL, 0) != 0 ||
	    verified != preemptions || preemptions < least) {
		n->wrong++;
		dump_program("a cut's witness is wrong", p);
	}
	free(witness);
}

static void witnesses_verify_and_agree_with_exact(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_CUT_SEED", 0x5ca1e0UL);
	int programs = (int)test_env_number("VSC_STALE_CUT_COUNT", PROGRAMS);
	struct tally by_exact = { 0, 0, 0 }, by_auto = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 8, 1, 2);
		struct vsc_program *p = random_program(&seed, &shape);
		struct vsc_result *plain, *least;
		assert_non_null(p);
		plain = decide(p, "exact", -1, 0);
		least = decide(p, "exact", -1, 1);
		by_exact.consistent += vsc_result_verdict(plain) == VSC_CONSISTENT;
		check_cut(p, exact_part_solve, vsc_result_verdict(plain),
			  vsc_result_preemptions(least), &by_exact);
		if (i % 4 == 0)
			check_cut(p, auto_part_solve, vsc_result_verdict(plain),
				  vsc_result_preemptions(least), &by_auto);
		vsc_result_free(plain);
		vsc_result_free(least);
		vsc_program_free(p);
	}
	printf("stale cut: witnesses for %d of %d consistent programs (halves by exact), %d of a "
	       "quarter (by auto); %d programs\n",
	       by_exact.found, by_exact.consistent, by_auto.found, programs);
	assert_int_equal(by_exact.wrong, 0);
	assert_int_equal(by_auto.wrong, 0);
	/* it finds some: the test can tell a cut that never joins right */
	assert_true(by_exact.found * 10 > by_exact.consistent);
	assert_true(by_auto.found * 40 > by_exact.consistent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(witnesses_verify_and_agree_with_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
