/* SPDX-License-Identifier: MIT */
/* The lower bound an unknown --min reports (vsc_result_least_at_least(),
 * res->lower), with or without a witness, against the least of the
 * brute-force reference: auto on small random programs under every work
 * cap from 1 unit up (doubling) until it decides, so that each of its
 * stages is stopped somewhere. Every bound it reports is at most the exact
 * least; a witness beside it verifies with its count at least the bound;
 * a decided answer is the reference's. Some of the stopped runs must
 * report a bound above 0 with no witness (what --min shows as
 * `least: at least N`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "brute.h"
#include "least_check.h"
#include "random_program.h"
#include "solver.h"
#include "testutil.h"

#define BRUTE_NODES 2000000ULL
#define MAX_CAP (1UL << 22)

struct tally {
	unsigned long runs, stopped, bare, bare_raised;
};

/* auto --min (bound: -1 or -p N too) on p under a work cap of cap units. */
static struct vsc_result *capped(const struct vsc_program *p, long bound, unsigned long cap)
{
	VSC_OPTS(vsc_check_opts, opts, .minimize = 1, .want_witness = 1);
	struct query q = { .bound = bound, .minimize = 1, .want_witness = 1, .jobs = 1 };
	struct vsc_result *res = calloc(1, sizeof(*res));
	struct budget b;

	assert_non_null(res);
	budget_init(&b, &opts);
	b.work_cap = cap;
	res->preemptions = res->lower = -1;
	res->solver = "auto";
	assert_int_equal(auto_solver.solve(p, &q, &b, res), 0);
	return res;
}

static void fail_on(const struct vsc_program *p, const char *why, long bound, unsigned long cap,
		    long got, long least)
{
	dump_program(why, p);
	fail_msg("%s: -p %ld, cap %lu: got %ld, least %ld", why, bound, cap, got, least);
}

/* One run: what it reports against ans (least -1: inconsistent). Returns 1
 * when it decided. */
static int check_run(const struct vsc_program *p, const struct brute_answer *ans, long bound,
		     unsigned long cap, struct tally *t)
{
	struct vsc_result *res = capped(p, bound, cap);
	enum vsc_verdict v = vsc_result_verdict(res);
	long at_least = vsc_result_least_at_least(res), lo, hi, count = -1;
	int within = ans->consistent && (bound < 0 || ans->least <= bound);

	t->runs++;
	if (v == VSC_CONSISTENT && (!within || vsc_result_preemptions(res) != ans->least ||
				    !witness_verified(p, res, &count) || count != ans->least))
		fail_on(p, "consistent, not the least", bound, cap, vsc_result_preemptions(res),
			ans->least);
	if (v == VSC_INCONSISTENT && within)
		fail_on(p, "inconsistent, but SC within the bound", bound, cap, -1, ans->least);
	if (v == VSC_UNKNOWN) {
		t->stopped++;
		if (at_least > 0 && ans->consistent && at_least > ans->least)
			fail_on(p, "lower bound above the least", bound, cap, at_least, ans->least);
		if (at_least > 0 && at_least != res->lower)
			fail_on(p, "least_at_least is not the result's lower", bound, cap, at_least,
				res->lower);
		if (vsc_result_least_bounds(res, &lo, &hi) == 0 &&
		    (lo > hi || !witness_verified(p, res, &count) || count != hi ||
		     (ans->consistent && lo > ans->least) || lo != res->lower))
			fail_on(p, "bounds beside the witness wrong", bound, cap, lo, ans->least);
		if (!vsc_result_witness(res, NULL)) {
			t->bare++;
			t->bare_raised += at_least > 0;
		}
	}
	vsc_result_free(res);
	return v != VSC_UNKNOWN;
}

/* Every cap 1, 2, 4, ... until the run decides (or MAX_CAP). */
static void sweep(const struct vsc_program *p, const struct brute_answer *ans, long bound,
		  struct tally *t)
{
	for (unsigned long cap = 1; cap <= MAX_CAP; cap *= 2)
		if (check_run(p, ans, bound, cap, t))
			return;
}

/* max_events 0: 3-5 threads of 10-31 events, two writers a variable
 * (random_two_writer_shape()); else small_shape()'s 2-4 threads. */
static void family(uint64_t seed, unsigned programs, unsigned max_events, int two_writers)
{
	struct tally t = { 0 };

	for (unsigned i = 0; i < programs; i++) {
		struct random_shape shape =
			max_events ? small_shape(&seed, max_events, 2, 3)
				   : random_two_writer_shape(&seed, (int)i, 10, 1, 2);
		struct brute_answer ans;
		struct vsc_program *p;

		if (max_events) {
			shape.two_writers = two_writers;
			shape.rmw_pct = i % 3 == 0 ? 30 : 0;
			shape.init_pct = i % 2 ? 60 : 0; /* half of them `init x ?` */
		}
		p = random_program(&seed, &shape);
		assert_non_null(p);
		if (brute_solve(p, BRUTE_NODES, &ans) == 0) {
			sweep(p, &ans, -1, &t);
			if (ans.consistent)
				sweep(p, &ans, ans.least + (long)random_below(&seed, 3), &t);
		}
		vsc_program_free(p);
	}
	print_message("%lu runs, %lu stopped, %lu with no witness, %lu of them with a bound\n",
		      t.runs, t.stopped, t.bare, t.bare_raised);
	/* the bound alone is reported: not always 0 */
	assert_true(t.bare_raised > 0);
}

static void test_several_writers(void **state)
{
	(void)state;
	family(0x5eed1e55ULL, (unsigned)test_env_number("VSC_LEAST_LOWER_PROGRAMS", 600), 12, 0);
}

static void test_two_writers(void **state)
{
	(void)state;
	family(0x70771e55ULL, (unsigned)test_env_number("VSC_LEAST_LOWER_PROGRAMS", 600), 14, 1);
}

static void test_wider(void **state)
{
	(void)state;
	family(0x3a1de55ULL, (unsigned)test_env_number("VSC_LEAST_LOWER_PROGRAMS", 600) / 2, 0, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several_writers),
		cmocka_unit_test(test_two_writers),
		cmocka_unit_test(test_wider),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
