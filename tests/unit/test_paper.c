/* SPDX-License-Identifier: MIT */
/* The paper's 1-Writer algorithm (--solver=paper) against the exact search
 * on thousands of small random 1-Writer programs: same verdict, same least
 * number of preemptions, and every witness passes the verifier. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "random_program.h"
#include "testutil.h"

static void assert_witness_ok(const struct vsc_program *p, const struct vsc_result *res)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	long pre = -1;
	char why[200] = "";

	if (vsc_result_verdict(res) != VSC_CONSISTENT)
		return;
	if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)) != 0) {
		vsc_program_write(p, stderr);
		fail_msg("bad witness: %s", why);
	}
	assert_int_equal(pre, vsc_result_preemptions(res));
}

static void compare_on(const struct vsc_program *p, long bound, int minimize)
{
	struct vsc_result *want = decide(p, "exact", bound, minimize);
	struct vsc_result *got = decide(p, "paper", bound, minimize);

	if (vsc_result_verdict(want) != vsc_result_verdict(got) ||
	    (minimize && vsc_result_preemptions(want) != vsc_result_preemptions(got))) {
		vsc_program_write(p, stderr);
		fail_msg("bound %ld min %d: exact says %d (%ld), paper says %d (%ld)", bound,
			 minimize, vsc_result_verdict(want), vsc_result_preemptions(want),
			 vsc_result_verdict(got), vsc_result_preemptions(got));
	}
	assert_witness_ok(p, got);
	if (vsc_result_verdict(got) == VSC_CONSISTENT)
		assert_true(vsc_result_preemptions(got) <= bound);
	vsc_result_free(want);
	vsc_result_free(got);
}

static void paper_agrees_with_exact(void **state)
{
	uint64_t seed = 0x5eed1234abcdULL;
	(void)state;
	for (int i = 0; i < 4000; i++) {
		struct random_shape shape = {
			.threads = 2 + (unsigned)(random_next(&seed) % 3),
			.events = 3 + (unsigned)(random_next(&seed) % 7),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = 2 + (unsigned)(random_next(&seed) % 2),
			.one_writer = 1,
			.write_pct = 45,
			.rmw_pct = i % 4 == 0 ? 30 : 0,
			.wrong_pct = 12,
			.init_pct = i % 3 == 0 ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		compare_on(p, (long)(random_next(&seed) % 4), 0);
		compare_on(p, 3, 1);
		vsc_program_free(p);
	}
}

/* Greedy placement and `init x ?`: placed at position 0, the outer block of
 * T0 reads x0 = 0 and so fixes the unknown initial value, starving the inner
 * block T1[0] that reads x0 = 1 from it. Taken literally the paper answers
 * inconsistent for pi = 1; the solver tries each candidate initial value. */
static void paper_unknown_init_counterexample(void **state)
{
	static const char text[] = "init x0 ?\ninit x1 1\n"
				   "T0 r x1 1\nT0 r x1 1\nT0 r x0 0\n"
				   "T1 r x0 1\nT1 r x0 0\n"
				   "T2 w x0 1\nT2 w x0 1\nT2 w x0 0\nT2 r x0 0\n";
	struct vsc_trace *trace = vsc_trace_parse_buffer(text, sizeof(text) - 1, NULL);
	const struct vsc_program *p;
	struct vsc_result *res;
	(void)state;
	assert_non_null(trace);
	p = vsc_trace_program(trace, 0);
	res = decide(p, "paper", 1, 0);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	assert_witness_ok(p, res);
	vsc_result_free(res);
	compare_on(p, 1, 1);
	vsc_trace_free(trace);
}

/* Two writers: the paper's algorithm does not apply and says so. */
static void paper_refuses_two_writers(void **state)
{
	struct vsc_program *p = vsc_program_new();
	struct vsc_event w1 = { .kind = VSC_WRITE, .var = 0, .value = 1 };
	struct vsc_event w2 = { .kind = VSC_WRITE, .var = 0, .value = 2 };
	VSC_OPTS(vsc_check_opts, opts, .bounded = 1, .preemptions = 1, .solver = "paper");
	struct vsc_result *res = NULL;
	(void)state;
	vsc_program_add_thread(p, "A");
	vsc_program_add_thread(p, "B");
	vsc_program_add_var(p, "x");
	vsc_program_append(p, 0, &w1, 0);
	vsc_program_append(p, 1, &w2, 0);
	assert_int_equal(vsc_check(p, &opts, &res), -EINVAL);
	vsc_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paper_agrees_with_exact),
		cmocka_unit_test(paper_unknown_init_counterexample),
		cmocka_unit_test(paper_refuses_two_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
