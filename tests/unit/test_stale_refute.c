/* SPDX-License-Identifier: MIT */
/* The refutation at a stale read (stale_refute.c) against the exact search,
 * on small random programs whose variables have one or two writer threads
 * each (3-5 threads, few values, RMWs, `init ?` and known inits, wrong
 * reads): every program it refutes is inconsistent for the exact solver
 * (with no bound: an exhaustive search over interleavings), with the
 * prefix programs decided by the exact solver and, for a quarter, by auto;
 * and it refutes some, so that a refutation that never closes a case
 * cannot pass. VSC_STALE_REFUTE_SEED and VSC_STALE_REFUTE_COUNT change the
 * run (offline stress). */
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
#include "stale_refute.h"
#include "testutil.h"

#define PROGRAMS 8000

struct tally {
	int refuted, inconsistent, wrong;
};

/* One refutation's answer checked against the truth (exact, no bound). */
static void check_refute(const struct vsc_program *p, writer_group_solve_fn solve,
			 enum vsc_verdict truth, struct tally *n)
{
	struct budget b;
	int r;

	memset(&b, 0, sizeof(b));
	b.memory_limit = (size_t)1 << 30;
	r = stale_refute(p, &b, 1UL << 30, solve);
	assert_true(r == STALE_REFUTE_OPEN || r == STALE_REFUTE_REFUTED);
	if (r != STALE_REFUTE_REFUTED)
		return;
	n->refuted++;
	if (truth != VSC_INCONSISTENT) {
		n->wrong++;
		dump_program("a stale read's refutation is wrong", p);
	}
}

static void refutations_agree_with_exact(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_REFUTE_SEED", 0x5ef07eUL);
	int programs = (int)test_env_number("VSC_STALE_REFUTE_COUNT", PROGRAMS);
	struct tally by_exact = { 0, 0, 0 }, by_auto = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 8, 1, 2);
		struct vsc_program *p = random_program(&seed, &shape);
		struct vsc_result *plain;
		enum vsc_verdict truth;
		assert_non_null(p);
		plain = decide(p, "exact", -1, 0);
		truth = vsc_result_verdict(plain);
		by_exact.inconsistent += truth == VSC_INCONSISTENT;
		check_refute(p, exact_part_solve, truth, &by_exact);
		if (i % 4 == 0)
			check_refute(p, auto_part_solve, truth, &by_auto);
		vsc_result_free(plain);
		vsc_program_free(p);
	}
	printf("stale refute: %d of %d inconsistent programs refuted (prefixes by exact), %d "
	       "of a quarter (by auto); %d programs\n",
	       by_exact.refuted, by_exact.inconsistent, by_auto.refuted, programs);
	assert_int_equal(by_exact.wrong, 0);
	assert_int_equal(by_auto.wrong, 0);
	/* it refutes some: the test can tell a refutation that never closes */
	assert_true(by_exact.refuted * 10 > by_exact.inconsistent);
	assert_true(by_auto.refuted * 40 > by_exact.inconsistent);
}

/* A prefix program's solve that decides nothing: the cases close by the
 * bounds alone (stale_bounds.c), the corridors of two writers with them. */
static int no_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
			 struct vsc_result *res)
{
	(void)sp;
	(void)q;
	(void)b;
	res->verdict = VSC_UNKNOWN;
	return 0;
}

/* The bounds alone, on programs where a variable's two writers read each
 * other's writes and other threads read both (the corridor's shape): every
 * refutation is right, and the bounds refute some. */
static void bounds_alone_agree_with_exact(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_REFUTE_SEED", 0xb0a7d5UL);
	int programs = (int)test_env_number("VSC_STALE_REFUTE_COUNT", PROGRAMS);
	struct tally n = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 10, 1, 2);
		struct vsc_program *p;
		struct vsc_result *plain;
		enum vsc_verdict truth;
		shape.rmw_pct = 0;
		p = random_program(&seed, &shape);
		assert_non_null(p);
		plain = decide(p, "exact", -1, 0);
		truth = vsc_result_verdict(plain);
		n.inconsistent += truth == VSC_INCONSISTENT;
		check_refute(p, no_part_solve, truth, &n);
		vsc_result_free(plain);
		vsc_program_free(p);
	}
	printf("stale refute, the bounds alone: %d of %d inconsistent programs refuted; %d "
	       "programs\n",
	       n.refuted, n.inconsistent, programs);
	assert_int_equal(n.wrong, 0);
	assert_true(n.refuted * 20 > n.inconsistent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refutations_agree_with_exact),
		cmocka_unit_test(bounds_alone_agree_with_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
