/* SPDX-License-Identifier: MIT */
/* Independent parts decided at once (vsc_check_opts.jobs, parts.c): on
 * thousands of random programs made of several parts over disjoint threads
 * and variables (init ?, RMWs, wrong reads), jobs 1 and jobs 4 give the
 * same result to the byte (verdict, preemptions, least bounds, witness,
 * counts), which agrees with the exact search on the whole program; every
 * witness passes the verifier. Then the same on programs big enough for
 * parts to be packed, and the limits: a memory limit and a timeout shared
 * by the threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "random_program.h"
#include "testutil.h"

#define MAX_PARTS 3

/* Append part q to p, its threads and variables named "pK_" + name. */
static void append_part(struct vsc_program *p, const struct vsc_program *q, unsigned k)
{
	size_t t0 = vsc_program_thread_count(p), v0 = vsc_program_var_count(p);
	char name[64];

	for (size_t t = 0; t < vsc_program_thread_count(q); t++) {
		snprintf(name, sizeof(name), "p%u_%s", k, vsc_program_thread_name(q, t));
		assert_true(vsc_program_add_thread(p, name) >= 0);
	}
	for (size_t v = 0; v < vsc_program_var_count(q); v++) {
		int64_t value = 0;
		int kind = vsc_program_var_init(q, v, &value);
		snprintf(name, sizeof(name), "p%u_%s", k, vsc_program_var_name(q, v));
		assert_true(vsc_program_add_var(p, name) >= 0);
		assert_int_equal(vsc_program_set_init(p, v0 + v, kind, value), 0);
	}
	for (size_t t = 0; t < vsc_program_thread_count(q); t++) {
		const struct vsc_event *e = vsc_program_events(q, t);
		for (size_t i = 0; i < vsc_program_thread_length(q, t); i++) {
			struct vsc_event c = e[i];
			c.var += (uint32_t)v0;
			assert_int_equal(vsc_program_append(p, t0 + t, &c, 0), 0);
		}
	}
}

/* parts parts, each a random program of 3 to events + 2 events on 2 to
 * max_threads + 1 threads. */
static struct vsc_program *parts_program(uint64_t *seed, unsigned parts, unsigned events,
					 unsigned max_threads)
{
	struct vsc_program *p = vsc_program_new();

	assert_non_null(p);
	for (unsigned k = 0; k < parts; k++) {
		struct random_shape shape = {
			.threads = 2 + (unsigned)(random_next(seed) % max_threads),
			.events = 3 + (unsigned)(random_next(seed) % events),
			.vars = 1 + (unsigned)(random_next(seed) % 3 == 0),
			.values = 2 + (unsigned)(random_next(seed) % 2),
			.one_writer = random_next(seed) % 3 == 0,
			.write_pct = 30 + (unsigned)(random_next(seed) % 40),
			.rmw_pct = random_next(seed) % 2 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(seed) % 6),
			.init_pct = 60, /* half of them init ? */
		};
		struct vsc_program *q = random_program(seed, &shape);
		assert_non_null(q);
		append_part(p, q, k);
		vsc_program_free(q);
	}
	return p;
}

static void fail_on(const struct vsc_program *p, long bound, int minimize, const char *why)
{
	vsc_program_write(p, stderr);
	fail_msg("bound %ld, min %d: %s", bound, minimize, why);
}

/* Everything a caller can read of a result, the same in a and b. */
static void same_result(const struct vsc_program *p, long bound, int minimize,
			const struct vsc_result *a, const struct vsc_result *b)
{
	const uint32_t *wa, *wb;
	size_t na = vsc_result_witness(a, &wa), nb = vsc_result_witness(b, &wb);
	struct vsc_reductions ra, rb;
	long la = -1, ua = -1, lb = -1, ub = -1;

	vsc_result_reductions(a, &ra);
	vsc_result_reductions(b, &rb);
	vsc_result_least_bounds(a, &la, &ua);
	vsc_result_least_bounds(b, &lb, &ub);
	if (vsc_result_verdict(a) != vsc_result_verdict(b) ||
	    vsc_result_preemptions(a) != vsc_result_preemptions(b) || la != lb || ua != ub)
		fail_on(p, bound, minimize, "jobs 1 and 4 answer differently");
	if (na != nb || (na && memcmp(wa, wb, na * sizeof(*wa))))
		fail_on(p, bound, minimize, "jobs 1 and 4 give different witnesses");
	if (vsc_result_nodes(a) != vsc_result_nodes(b) ||
	    vsc_result_steps(a) != vsc_result_steps(b) || memcmp(&ra, &rb, sizeof(ra)))
		fail_on(p, bound, minimize, "jobs 1 and 4 count differently");
}

static void witness_verifies(const struct vsc_program *p, long bound, int minimize,
			     const struct vsc_result *res)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	long pre = -1;
	char why[200] = "";

	if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)))
		fail_on(p, bound, minimize, why);
	if (pre != vsc_result_preemptions(res) || (bound >= 0 && pre > bound))
		fail_on(p, bound, minimize, "the witness has other preemptions");
}

/* jobs 1 and 4 alike, and as exact says: least is the least preemptions
 * (-1: inconsistent for every bound). */
static void compare_on(const struct vsc_program *p, long least, long bound, int minimize)
{
	struct vsc_result *one = decide_jobs(p, NULL, bound, minimize, 1);
	struct vsc_result *four = decide_jobs(p, NULL, bound, minimize, 4);
	int consistent = least >= 0 && (bound < 0 || least <= bound);

	same_result(p, bound, minimize, one, four);
	if ((vsc_result_verdict(one) == VSC_CONSISTENT) != consistent ||
	    vsc_result_verdict(one) == VSC_UNKNOWN ||
	    (consistent && minimize && vsc_result_preemptions(one) != least))
		fail_on(p, bound, minimize, "not what exact says");
	if (consistent)
		witness_verifies(p, bound, minimize, one);
	vsc_result_free(one);
	vsc_result_free(four);
}

/* Every question: plain, --min, and each bound up to one past the least
 * (with and without --min), where the parts share the bound. */
static void parts_agree_on_random_programs(void **state)
{
	uint64_t seed = 0x9a27ULL;
	unsigned long split = 0;
	int programs = (int)test_share(2000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		unsigned parts = 2 + (unsigned)(random_next(&seed) % (MAX_PARTS - 1));
		struct vsc_program *p = parts_program(&seed, parts, 6, 2);
		struct vsc_result *exact = decide(p, "exact", -1, 1);
		long least = vsc_result_preemptions(exact);
		struct vsc_reductions red;
		struct vsc_result *plain = decide_jobs(p, NULL, -1, 0, 4);

		assert_int_not_equal(vsc_result_verdict(exact), VSC_UNKNOWN);
		vsc_result_reductions(plain, &red);
		split += red.parts > 1;
		compare_on(p, least, -1, 0);
		compare_on(p, least, -1, 1);
		for (long bound = 0; bound <= (least > 1 ? least + 1 : 2); bound++) {
			compare_on(p, least, bound, 0);
			compare_on(p, least, bound, 1);
		}
		vsc_result_free(plain);
		vsc_result_free(exact);
		vsc_program_free(p);
	}
	printf("parts: %d programs, %lu split into parts\n", programs, split);
	assert_true(split > (unsigned long)programs / 2);
}

/* Programs of 2^16 events and more, where small parts are packed into
 * groups: consistent by construction (no wrong reads), so the least
 * preemptions are known only to the solver; jobs 1 and 4 agree. */
static void parts_agree_on_packed_programs(void **state)
{
	uint64_t seed = 0x7ac4ULL;

	(void)state;
	for (int i = 0; i < 6; i++) {
		struct vsc_program *p = vsc_program_new();
		for (unsigned k = 0; k < 40; k++) {
			struct random_shape shape = {
				.threads = 2 + (unsigned)(random_next(&seed) % 3),
				.events = 500 + (unsigned)(random_next(&seed) % 3000),
				.vars = 2 + (unsigned)(random_next(&seed) % 6),
				.values = 2 + (unsigned)(random_next(&seed) % 6),
				.one_writer = i % 2,
				.write_pct = 40,
				.rmw_pct = i % 3 ? 30 : 0,
				.init_pct = 60,
			};
			struct vsc_program *q = random_program(&seed, &shape);
			append_part(p, q, k);
			vsc_program_free(q);
		}
		for (long bound = -1; bound <= 60; bound += 61) {
			struct vsc_result *one = decide_jobs(p, NULL, bound, i % 2, 1);
			struct vsc_result *four = decide_jobs(p, NULL, bound, i % 2, 4);
			same_result(p, bound, i % 2, one, four);
			if (vsc_result_verdict(one) == VSC_CONSISTENT)
				witness_verifies(p, bound, i % 2, one);
			vsc_result_free(one);
			vsc_result_free(four);
		}
		vsc_program_free(p);
	}
}

/* Limits bind the threads together: under a memory limit that the parts'
 * searches pass together, and under a short timeout, the answer is the
 * one without limits or unknown, and the threads stop in time. */
static void parts_share_the_limits(void **state)
{
	uint64_t seed = 0x11a5ULL;
	struct vsc_program *p = vsc_program_new();

	(void)state;
	for (unsigned k = 0; k < 4; k++) {
		struct random_shape shape = { .threads = 6,
					      .events = 3000,
					      .vars = 3,
					      .values = 2,
					      .write_pct = 40,
					      .wrong_pct = 1,
					      .init_pct = 60 };
		struct vsc_program *q = random_program(&seed, &shape);
		append_part(p, q, k);
		vsc_program_free(q);
	}
	for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
		VSC_OPTS(vsc_check_opts, mem, .minimize = true, .memory_limit = 1 << 16,
			 .jobs = jobs);
		VSC_OPTS(vsc_check_opts, slow, .minimize = true, .timeout_s = 0.05, .jobs = jobs);
		VSC_OPTS(vsc_check_opts, free_, .minimize = true, .timeout_s = 5, .jobs = jobs);
		struct vsc_result *res = NULL, *want = NULL;
		assert_int_equal(vsc_check(p, &free_, &want), 0);
		assert_int_equal(vsc_check(p, &mem, &res), 0);
		if (vsc_result_verdict(res) != VSC_UNKNOWN)
			assert_int_equal(vsc_result_verdict(res), vsc_result_verdict(want));
		vsc_result_free(res);
		assert_int_equal(vsc_check(p, &slow, &res), 0);
		if (vsc_result_verdict(res) != VSC_UNKNOWN)
			assert_int_equal(vsc_result_verdict(res), vsc_result_verdict(want));
		assert_true(vsc_result_time(res) < 1.0);
		vsc_result_free(res);
		vsc_result_free(want);
	}
	vsc_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parts_agree_on_random_programs),
		cmocka_unit_test(parts_agree_on_packed_programs),
		cmocka_unit_test(parts_share_the_limits),
	};
	return cmocka_run_group_tests_name("parts", tests, NULL, NULL);
}
