/* SPDX-License-Identifier: MIT */
/* vsc_verdict_combine: every pair, and folding a list the way vsc check
 * folds the segments of a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vsc/vsc.h"

static void test_pairs(void **state)
{
	(void)state;
	static const enum vsc_verdict all[] = { VSC_CONSISTENT, VSC_INCONSISTENT, VSC_UNKNOWN };

	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < 3; j++) {
			enum vsc_verdict a = all[i], b = all[j];
			enum vsc_verdict want = a == VSC_UNKNOWN || b == VSC_UNKNOWN ? VSC_UNKNOWN
						: a == VSC_INCONSISTENT || b == VSC_INCONSISTENT
							? VSC_INCONSISTENT
							: VSC_CONSISTENT;
			assert_int_equal(vsc_verdict_combine(a, b), want);
			assert_int_equal(vsc_verdict_combine(b, a),
					 want); /* order does not matter */
		}
	}
}

static void test_fold(void **state)
{
	(void)state;
	static const enum vsc_verdict segments[] = { VSC_CONSISTENT, VSC_INCONSISTENT,
						     VSC_CONSISTENT };
	enum vsc_verdict v = VSC_CONSISTENT;

	for (size_t i = 0; i < 3; i++)
		v = vsc_verdict_combine(v, segments[i]);
	assert_int_equal(v, VSC_INCONSISTENT);
	assert_int_equal(vsc_verdict_combine(v, VSC_UNKNOWN), VSC_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_fold),
	};
	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
