/* SPDX-License-Identifier: MIT */
#include "step_alone.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testutil.h"

int step_alone_verdict(solver_step step, int decided, int open, const struct vsc_program *p,
		       long bound, int minimize, long *pre)
{
	struct query q = { .bound = bound, .minimize = minimize, .want_witness = 1 };
	struct vsc_result res = { .preemptions = -1, .lower = -1 };
	VSC_OPTS(vsc_check_opts, opts);
	struct budget b;
	long verified = -1;
	char why[200] = "";
	int r;

	budget_init(&b, &opts);
	r = step(p, &q, &b, &res);
	assert_true(r == decided || r == open);
	if (r == open) {
		assert_null(res.witness);
		return -1;
	}
	assert_int_equal(res.verdict, VSC_CONSISTENT);
	if (vsc_witness_verify(p, res.witness, res.witness_length, &verified, why, sizeof(why))) {
		vsc_program_write(p, stderr);
		fail_msg("witness rejected: %s", why);
	}
	assert_int_equal(verified, res.preemptions);
	*pre = res.preemptions;
	free(res.witness);
	return VSC_CONSISTENT;
}

void step_alone_agrees(const struct vsc_program *p, long bound, int minimize, long pre)
{
	struct vsc_result *want = decide(p, "exact", bound, minimize);

	if (vsc_result_verdict(want) != VSC_CONSISTENT || (bound >= 0 && pre > bound) ||
	    (minimize && vsc_result_preemptions(want) != pre)) {
		vsc_program_write(p, stderr);
		fail_msg("bound %ld min %d: the step says consistent with %ld, exact says %d (%ld)",
			 bound, minimize, pre, vsc_result_verdict(want),
			 vsc_result_preemptions(want));
	}
	vsc_result_free(want);
}
