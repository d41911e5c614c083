/* SPDX-License-Identifier: MIT */
#include "least_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "testutil.h"

int witness_verified(const struct vsc_program *p, const struct vsc_result *res, long *count)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);

	return vsc_witness_verify(p, w, n, count, NULL, 0) == 0;
}

/* auto without a bound: the verdict, and a witness never below the least. */
static int plain_agrees(const struct vsc_program *p, int consistent, long least)
{
	struct vsc_result *res = decide(p, "auto", -1, 0);
	long count = -1;
	int ok = (vsc_result_verdict(res) == VSC_CONSISTENT) == consistent &&
		 (!consistent || (witness_verified(p, res, &count) && count >= least));

	vsc_result_free(res);
	return ok;
}

int auto_agrees_with_least(const struct vsc_program *p, int consistent, long least, int plain)
{
	struct vsc_result *res;
	long count = -1;
	int ok = !plain || plain_agrees(p, consistent, least);

	res = decide(p, "auto", -1, 1);
	ok = ok && (vsc_result_verdict(res) == VSC_CONSISTENT) == consistent;
	if (ok && consistent)
		ok = vsc_result_preemptions(res) == least && witness_verified(p, res, &count) &&
		     count == least;
	vsc_result_free(res);
	for (long b = least - 1; ok && consistent && b <= least; b++) {
		if (b < 0)
			continue;
		res = decide(p, "auto", b, 0);
		ok = (vsc_result_verdict(res) == VSC_CONSISTENT) == (b >= least) &&
		     (b < least || (witness_verified(p, res, &count) && count <= b));
		vsc_result_free(res);
	}
	return ok;
}

void preemptions_after(const struct vsc_program *p, const uint32_t *w, size_t n, uint32_t *left,
		       long *after)
{
	long sum = 0;

	for (size_t t = 0; t < vsc_program_thread_count(p); t++)
		left[t] = (uint32_t)vsc_program_thread_length(p, t);
	for (size_t i = 0; i <= n; i++)
		after[i] = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		left[w[i]]--;
		after[i + 1] =
			w[i + 1] != w[i] && left[w[i]] > 0; /* the switch before step i + 1 */
	}
	/* suffix sums, shifted: after[m] = sum of the switches before steps > m */
	for (size_t m = n + 1; m-- > 0;) {
		long here = m < n ? after[m] : 0;
		after[m] = sum;
		sum += here;
	}
}

struct random_shape small_shape(uint64_t *seed, unsigned max_events, unsigned least_values,
				unsigned value_spread)
{
	struct random_shape shape = { 0 };

	shape.threads = 2 + random_below(seed, 3);
	shape.events = 2 + random_below(seed, max_events);
	shape.vars = 1 + random_below(seed, 3);
	shape.values = least_values + random_below(seed, value_spread);
	shape.write_pct = 30 + random_below(seed, 40);
	shape.wrong_pct = random_below(seed, 4);
	return shape;
}

void auto_agrees_on_bounds(const struct vsc_program *p, const long *bounds, unsigned n)
{
	for (unsigned j = 0; j <= n; j++) {
		long bound = j < n ? bounds[j] : -1, pre = -1;
		int minimize = j == n;
		struct vsc_result *got = decide(p, "auto", bound, minimize);
		struct vsc_result *want = decide(p, "exact", bound, minimize);

		if (vsc_result_verdict(got) != vsc_result_verdict(want) ||
		    (minimize && vsc_result_preemptions(got) != vsc_result_preemptions(want))) {
			dump_program("auto and exact differ", p);
			fail_msg("bound %ld min %d: auto %d (%ld), exact %d (%ld)", bound, minimize,
				 vsc_result_verdict(got), vsc_result_preemptions(got),
				 vsc_result_verdict(want), vsc_result_preemptions(want));
		}
		if (vsc_result_verdict(got) == VSC_CONSISTENT) {
			assert_true(witness_verified(p, got, &pre));
			assert_int_equal(pre, vsc_result_preemptions(got));
		}
		vsc_result_free(got);
		vsc_result_free(want);
	}
}
