/* SPDX-License-Identifier: MIT */
/* The refutation by writer groups (writer_groups.c) against the exact
 * search, on small random programs whose variables have one or two writer
 * threads each (3-5 threads, few values, RMWs, `init ?` and known inits,
 * wrong reads): every program a group refutes has no SC interleaving at all
 * (the exact solver, no bound), and the groups refute some; `auto`, which
 * tries them, agrees with the exact solver with no bound and under --min.
 * VSC_WRITER_GROUPS_SEED and VSC_WRITER_GROUPS_COUNT change the run
 * (offline stress). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "random_program.h"
#include "solver.h"
#include "testutil.h"
#include "writer_groups.h"

#define PROGRAMS 20000

struct tally {
	int refuted, inconsistent, wrong, auto_checked;
};

/* The groups' programs are decided by the exact solver here, so that a
 * wrong refutation is the groups' own. */
static int exact_solve(const struct vsc_program *gp, const struct query *q, struct budget *b,
		       struct vsc_result *res)
{
	return exact_solver.solve(gp, q, b, res);
}

static int groups_refute(const struct vsc_program *p)
{
	struct budget b;

	memset(&b, 0, sizeof(b));
	b.memory_limit = (size_t)1 << 30;
	return writer_groups_refute(p, &b, 1UL << 30, exact_solve);
}

/* auto (which tries the groups) against exact: the verdict with no bound,
 * and the least under --min. */
static void auto_agrees(const struct vsc_program *p, enum vsc_verdict truth)
{
	struct vsc_result *plain = decide(p, NULL, -1, 0), *least = decide(p, NULL, -1, 1);
	struct vsc_result *exact_least = decide(p, "exact", -1, 1);

	if (vsc_result_verdict(plain) != truth ||
	    vsc_result_preemptions(least) != vsc_result_preemptions(exact_least))
		dump_program("auto disagrees with exact", p);
	assert_int_equal(vsc_result_verdict(plain), truth);
	assert_int_equal(vsc_result_verdict(least), vsc_result_verdict(exact_least));
	assert_int_equal(vsc_result_preemptions(least), vsc_result_preemptions(exact_least));
	vsc_result_free(plain);
	vsc_result_free(least);
	vsc_result_free(exact_least);
}

static void check_program(const struct vsc_program *p, int with_auto, struct tally *n)
{
	struct vsc_result *res = decide(p, "exact", -1, 0);
	enum vsc_verdict truth = vsc_result_verdict(res);
	int r = groups_refute(p);

	assert_true(r == WRITER_GROUPS_OPEN || r == WRITER_GROUPS_REFUTED);
	n->inconsistent += truth == VSC_INCONSISTENT;
	if (r == WRITER_GROUPS_REFUTED) {
		n->refuted++;
		if (truth != VSC_INCONSISTENT) {
			n->wrong++;
			dump_program("writer groups refute an SC program", p);
		}
	}
	if (with_auto) {
		auto_agrees(p, truth);
		n->auto_checked++;
	}
	vsc_result_free(res);
}

static void refutes_only_what_exact_refutes(void **state)
{
	uint64_t seed = test_env_number("VSC_WRITER_GROUPS_SEED", 0x9a1f0e5UL);
	int programs = (int)test_env_number("VSC_WRITER_GROUPS_COUNT", PROGRAMS);
	struct tally n = { 0, 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 6, 2, 1);
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		check_program(p, i % 4 == 0, &n);
		vsc_program_free(p);
	}
	printf("writer groups: %d of %d programs refuted (%d inconsistent); auto = exact on %d\n",
	       n.refuted, programs, n.inconsistent, n.auto_checked);
	assert_int_equal(n.wrong, 0);
	/* they refute some: the test can tell a rule that refutes nothing */
	assert_true(n.refuted * 10 > n.inconsistent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refutes_only_what_exact_refutes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
