/* SPDX-License-Identifier: MIT */
/* The joins of a witness's pieces on any program (witness_joins.c), on
 * small random programs (2-5 threads, one or two writers a variable or
 * any, few values, RMWs, `init ?` and known inits, wrong reads) whose
 * exact search without a bound gave a witness: the joined witness is an
 * SC interleaving (the verifier here), with its count, no more
 * preemptions than before and no fewer than the exact least; some
 * witnesses lose preemptions (the test can tell joins that never join).
 * VSC_JOINS_SEED and VSC_JOINS_COUNT change the run (offline stress). */
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
#include "witness_joins.h"

#define PROGRAMS 6000

struct tally {
	int witnesses, fewer, wrong;
};

/* A random shape: the two-writer one of the cut's tests, or any writers. */
static struct random_shape some_shape(uint64_t *seed, int i)
{
	struct random_shape shape = random_two_writer_shape(seed, i, 8, 1, 2);

	if (i % 2) {
		shape.two_writers = 0;
		shape.threads = 2 + random_below(seed, 4);
	}
	return shape;
}

static void check_joins(const struct vsc_program *p, struct tally *n)
{
	struct vsc_result *plain = decide(p, "exact", -1, 0), *least = decide(p, "exact", -1, 1);
	const uint32_t *threads;
	size_t len = vsc_result_witness(plain, &threads);
	long before = vsc_result_preemptions(plain), pre = before, verified = -1;
	uint32_t *steps;
	struct budget b;

	if (vsc_result_verdict(plain) != VSC_CONSISTENT || len != p->event_count)
		goto out;
	n->witnesses++;
	steps = malloc((len ? len : 1) * sizeof(*steps));
	assert_non_null(steps);
	memcpy(steps, threads, len * sizeof(*steps));
	memset(&b, 0, sizeof(b));
	b.memory_limit = (size_t)1 << 30;
	assert_int_equal(witness_join_pieces(p, steps, &pre, &b), 0);
	if (vsc_witness_verify(p, steps, len, &verified, NULL, 0) != 0 || verified != pre ||
	    pre > before || pre < vsc_result_preemptions(least)) {
		n->wrong++;
		dump_program("a joined witness is wrong", p);
	}
	n->fewer += pre < before;
	free(steps);
out:
	vsc_result_free(plain);
	vsc_result_free(least);
}

static void joined_witnesses_verify(void **state)
{
	uint64_t seed = test_env_number("VSC_JOINS_SEED", 0x101e5UL);
	int programs = (int)test_env_number("VSC_JOINS_COUNT", PROGRAMS);
	struct tally n = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = some_shape(&seed, i);
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		check_joins(p, &n);
		vsc_program_free(p);
	}
	printf("witness joins: %d of %d witnesses lost preemptions; %d programs\n", n.fewer,
	       n.witnesses, programs);
	assert_int_equal(n.wrong, 0);
	assert_true(n.fewer > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(joined_witnesses_verify),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
