/* SPDX-License-Identifier: MIT */
/* Cores from vsc_explain are inconsistent and minimal: checked with the
 * exact solver on every core of many small random programs, with and
 * without a preemption bound. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vsc/vsc.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct vsc_program *random_program(uint64_t *seed)
{
	struct vsc_program *p = vsc_program_new();
	int threads = 2 + (int)(rng_next(seed) % 3), vars = 1 + (int)(rng_next(seed) % 3);
	char name[16];

	for (int v = 0; v < vars; v++) {
		snprintf(name, sizeof(name), "x%d", v);
		vsc_program_add_var(p, name);
		if (rng_next(seed) % 2)
			vsc_program_set_init(p, (size_t)v, VSC_INIT_KNOWN, 0);
	}
	for (int t = 0; t < threads; t++) {
		int len = 1 + (int)(rng_next(seed) % 4);
		snprintf(name, sizeof(name), "T%d", t);
		vsc_program_add_thread(p, name);
		for (int i = 0; i < len; i++) {
			struct vsc_event e = {
				.kind = (uint32_t)(rng_next(seed) % 5 == 0 ? VSC_RMW
						   : rng_next(seed) % 2 ? VSC_READ : VSC_WRITE),
				.var = (uint32_t)(rng_next(seed) % (uint64_t)vars),
				.value = (int64_t)(rng_next(seed) % 3),
				.new_value = (int64_t)(rng_next(seed) % 3),
			};
			vsc_program_append(p, (size_t)t, &e, 0);
		}
	}
	return p;
}

static int verdict_of(const struct vsc_program *p, long bound)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0, .solver = "exact");
	struct vsc_result *res;
	int v;

	assert_int_equal(vsc_check(p, &opts, &res), 0);
	v = vsc_result_verdict(res);
	vsc_result_free(res);
	return v;
}

static void check_core(const struct vsc_program *p, long bound)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0);
	const struct vsc_event_ref *core, *context;
	struct vsc_event_ref without[64];
	struct vsc_core *c;
	struct vsc_program *sub;
	size_t n, m;

	assert_int_equal(vsc_explain(p, &opts, &c), 0);
	assert_true(vsc_core_is_minimal(c));
	n = vsc_core_events(c, &core);
	m = vsc_core_context(c, &context);
	assert_true(n >= 1 && n <= 64 && m >= n);
	sub = vsc_program_subset(p, core, n);
	assert_non_null(sub);
	assert_int_equal(verdict_of(sub, bound), VSC_INCONSISTENT);
	vsc_program_free(sub);
	sub = vsc_program_subset(p, context, m);
	assert_int_equal(verdict_of(sub, bound), VSC_INCONSISTENT);
	vsc_program_free(sub);
	for (size_t drop = 0; drop < n; drop++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (i != drop)
				without[k++] = core[i];
		sub = vsc_program_subset(p, without, k);
		assert_non_null(sub);
		assert_int_equal(verdict_of(sub, bound), VSC_CONSISTENT);
		vsc_program_free(sub);
	}
	vsc_core_free(c);
}

static void test_random_cores(void **state)
{
	uint64_t seed = 20261202;
	int checked = 0;

	(void)state;
	for (int round = 0; round < 1500; round++) {
		struct vsc_program *p = random_program(&seed);
		for (long bound = -1; bound <= 1; bound++)
			if (verdict_of(p, bound) == VSC_INCONSISTENT) {
				check_core(p, bound);
				checked++;
			}
		vsc_program_free(p);
	}
	print_message("checked %d cores\n", checked);
	assert_true(checked > 100);
}

static void test_consistent_has_no_core(void **state)
{
	static const char text[] = "T1 w x 1\nT2 r x 1\n";
	struct vsc_trace *t = vsc_trace_parse_buffer(text, sizeof(text) - 1, NULL);
	VSC_OPTS(vsc_check_opts, opts);
	struct vsc_core *c = NULL;

	(void)state;
	assert_non_null(t);
	assert_int_equal(vsc_explain(vsc_trace_program(t, 0), &opts, &c), -EINVAL);
	assert_null(c);
	vsc_trace_free(t);
}

static void test_store_buffering_cycle(void **state)
{
	static const char text[] = "init x 0\ninit y 0\nT1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x 0\n";
	struct vsc_trace *t = vsc_trace_parse_buffer(text, sizeof(text) - 1, NULL);
	VSC_OPTS(vsc_check_opts, opts);
	const struct vsc_order *cycle;
	struct vsc_core *c;

	(void)state;
	assert_int_equal(vsc_explain(vsc_trace_program(t, 0), &opts, &c), 0);
	assert_int_equal(vsc_core_events(c, NULL), 4);
	assert_int_equal(vsc_core_cycle(c, &cycle), 4);
	for (int i = 0; i < 4; i++) /* each order ends where the next begins */
		assert_memory_equal(&cycle[i].after, &cycle[(i + 1) % 4].before,
				    sizeof(struct vsc_event_ref));
	vsc_core_free(c);
	vsc_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_cores),
		cmocka_unit_test(test_consistent_has_no_core),
		cmocka_unit_test(test_store_buffering_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
