/* SPDX-License-Identifier: MIT */
/* The lower bound of own_stops.c against the least witnesses of the exact
 * search: at every prefix of such a witness, the stops it says the threads
 * must still make are at most the preemptions the witness still makes
 * (switches after that prefix away from a thread with events left). Small
 * random programs with several writers per variable, few values, RMWs and
 * both kinds of init. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "least_check.h"
#include "own_stops.h"
#include "random_program.h"
#include "testutil.h"

#define PROGRAMS 3000

static struct vsc_result *least(const struct vsc_program *p)
{
	VSC_OPTS(vsc_check_opts, opts, .minimize = 1, .want_witness = 1, .solver = "exact");
	struct vsc_result *res = NULL;

	assert_int_equal(vsc_check(p, &opts, &res), 0);
	return res;
}

/* 1 when the bound exceeds what a least witness still makes somewhere. */
static int check_program(const struct vsc_program *p, int *with_stops)
{
	struct vsc_result *res = least(p);
	size_t k = vsc_program_thread_count(p), n;
	const uint32_t *w;
	struct analysis a;
	struct own_stops s;
	uint32_t *pos, *left;
	long *after;
	int bad = 0;

	if (vsc_result_verdict(res) != VSC_CONSISTENT) {
		vsc_result_free(res);
		return 0;
	}
	n = vsc_result_witness(res, &w);
	assert_int_equal(analysis_build(&a, p), 0);
	assert_int_equal(own_stops_build(&s, p, &a, NULL), 0);
	pos = calloc(k + 1, sizeof(*pos));
	left = calloc(k + 1, sizeof(*left));
	after = calloc(n + 2, sizeof(*after));
	assert_true(pos && left && after);
	preemptions_after(p, w, n, left, after);
	for (size_t m = 0; m <= n && !bad; m++) {
		if (m > 0)
			pos[w[m - 1]]++;
		bad = (long)own_stops_needed(&s, pos) > after[m];
	}
	*with_stops += own_stops_needed(&s, (uint32_t[8]){ 0 }) > 0;
	if (bad)
		dump_program("own stops exceed a least witness's preemptions", p);
	free(pos);
	free(left);
	free(after);
	own_stops_free(&s);
	analysis_free(&a);
	vsc_result_free(res);
	return bad;
}

static void stops_within_least_witnesses(void **state)
{
	uint64_t seed = 0x0757095ULL;
	int bad = 0, with_stops = 0;

	(void)state;
	for (int i = 0; i < PROGRAMS; i++) {
		struct random_shape shape = small_shape(&seed, 13, 1, 3);

		shape.rmw_pct = i % 3 == 0 ? 40 : 0;
		shape.init_pct = i % 2 ? 60 : 0;
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		bad += check_program(p, &with_stops);
		vsc_program_free(p);
	}
	assert_int_equal(bad, 0);
	/* the bound must have had something to say on many of them */
	printf("own stops: %d of %d programs need stops from the start\n", with_stops, PROGRAMS);
	assert_true(with_stops > PROGRAMS / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stops_within_least_witnesses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
