/* SPDX-License-Identifier: MIT */
/* SAT's question without preemptions (encode.c) within the memory limit:
 * its clauses grow with the square of a variable's writers per read, and
 * the solver takes some SAT_BYTES_PER_LIT bytes a literal. Past the limit
 * the encoding says -E2BIG (the sat solver then has no answer, auto
 * searches instead, as it does beyond 1,500 threads), as the encoding over
 * events does; before, it made every clause whatever the limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define THREADS 40

/* THREADS threads, each reading x (0, the initial value, which every
 * thread writes) before it writes x: every read is a choice among all the
 * writers, each choice a clause per other writer (some 250,000 literals in
 * all; the answer, consistent with no preemption, is easy). */
static struct vsc_trace *many_writers(void)
{
	size_t cap = 64 + THREADS * 32, len = 0;
	char *text = malloc(cap);
	struct vsc_trace *trace;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "vsc 1\ninit x 0\n");
	for (int t = 0; t < THREADS; t++)
		len += (size_t)snprintf(text + len, cap - len, "T%d r x 0\nT%d w x 0\n", t, t);
	trace = parse_bytes(text, len, NULL);
	free(text);
	assert_non_null(trace);
	return trace;
}

static int check_with(const struct vsc_program *p, const char *solver, long bound, int minimize,
		      size_t memory_limit, struct vsc_result **res)
{
	VSC_OPTS(vsc_check_opts, opts, .solver = solver, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0, .minimize = minimize,
		 .want_witness = 1, .memory_limit = memory_limit);

	*res = NULL;
	return vsc_check(p, &opts, res);
}

/* --solver sat -p 0: an answer within the default limit; -E2BIG (no
 * answer) under 1 MB, which the clauses alone would pass */
static void sat_no_preemption_within_the_limit(void **state)
{
	struct vsc_trace *trace = many_writers();
	const struct vsc_program *p = only_program(trace);
	struct vsc_result *res;

	(void)state;
	assert_int_equal(check_with(p, "sat", 0, 0, 0, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	vsc_result_free(res);
	assert_int_equal(check_with(p, "sat", 0, 0, (size_t)1 << 20, &res), -E2BIG);
	vsc_trace_free(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sat_no_preemption_within_the_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
