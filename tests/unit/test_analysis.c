/* SPDX-License-Identifier: MIT */
/* Facts the solvers take from the analysis and the reductions instead of
 * asking the program again:
 *  - the analysis's pair ids (analysis.c) against a plain list of the
 *    (variable, value) pairs in order of first sight: variables whose values
 *    are dense (a table by value) and scattered ones (the hash) in the same
 *    program must get the same ids a list would give;
 *  - the writer count of reduce_plan() against vsc_program_writers();
 *  - the refutation by RMWs that outnumber the sources of the value they
 *    read: only ever of programs a brute-force search finds not SC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "brute.h"
#include "random_program.h"
#include "reduce.h"

#define MAX_PAIRS 4096

struct pair_list {
	uint32_t var[MAX_PAIRS];
	int64_t value[MAX_PAIRS];
	uint32_t count;
};

/* The id a list gives (var, value): its place among the pairs seen. */
static uint32_t list_id(struct pair_list *l, uint32_t var, int64_t value)
{
	for (uint32_t i = 0; i < l->count; i++)
		if (l->var[i] == var && l->value[i] == value)
			return i;
	assert_true(l->count < MAX_PAIRS);
	l->var[l->count] = var;
	l->value[l->count] = value;
	return l->count++;
}

static void check_ids(const struct vsc_program *p)
{
	static struct pair_list l;
	struct analysis a;
	int64_t init;

	l.count = 0;
	assert_int_equal(analysis_build(&a, p), 0);
	for (uint32_t v = 0; v < vsc_program_var_count(p); v++)
		if (vsc_program_var_init(p, v, &init) == VSC_INIT_KNOWN)
			assert_int_equal(a.init[v], list_id(&l, v, init));
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++) {
		const struct vsc_event *e = vsc_program_events(p, t);
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			int64_t written = e[i].kind == VSC_RMW ? e[i].new_value : e[i].value;
			if (e[i].kind != VSC_WRITE)
				assert_int_equal(a.pairs[t][i].read,
						 list_id(&l, e[i].var, e[i].value));
			if (e[i].kind != VSC_READ)
				assert_int_equal(a.pairs[t][i].write,
						 list_id(&l, e[i].var, written));
		}
	}
	assert_int_equal(a.npairs, l.count);
	analysis_free(&a);
}

/* Spread variable v's values: v = 0 keeps them (dense), v = 1 multiplies
 * them far apart (hashed), v = 2 maps them to the ends of int64_t. */
static int64_t spread(uint32_t var, int64_t value)
{
	static const int64_t ends[] = { INT64_MIN, INT64_MAX, -1, 0, INT64_MIN + 1, 7 };

	switch (var % 3) {
	case 1:
		return value * ((int64_t)1 << 40) - 3;
	case 2:
		return ends[(uint64_t)value % 6];
	default:
		return value;
	}
}

static struct vsc_program *spread_copy(const struct vsc_program *p)
{
	struct vsc_program *q = vsc_program_new();
	int64_t init;

	assert_non_null(q);
	for (uint32_t v = 0; v < vsc_program_var_count(p); v++) {
		int kind = vsc_program_var_init(p, v, &init);
		assert_int_equal(vsc_program_add_var(q, vsc_program_var_name(p, v)), (int)v);
		assert_int_equal(vsc_program_set_init(q, v, kind, spread(v, init)), 0);
	}
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++) {
		const struct vsc_event *e = vsc_program_events(p, t);
		assert_int_equal(vsc_program_add_thread(q, vsc_program_thread_name(p, t)), (int)t);
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct vsc_event ev = e[i];
			ev.value = spread(ev.var, ev.value);
			ev.new_value = spread(ev.var, ev.new_value);
			assert_int_equal(vsc_program_append(q, t, &ev, 0), 0);
		}
	}
	return q;
}

static void pair_ids_match_a_list(void **state)
{
	uint64_t seed = 20261203;

	(void)state;
	for (int i = 0; i < 300; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % 5),
			.events = 1 + (unsigned)(random_next(&seed) % 300),
			.vars = 1 + (unsigned)(random_next(&seed) % 6),
			.values = 1 + (unsigned)(random_next(&seed) % 200),
			.one_writer = (int)(random_next(&seed) % 2),
			.write_pct = 40,
			.rmw_pct = 20,
			.wrong_pct = 5,
			.init_pct = 60,
		};
		struct vsc_program *p = random_program(&seed, &shape), *q;
		assert_non_null(p);
		q = spread_copy(p);
		check_ids(p);
		check_ids(q);
		vsc_program_free(q);
		vsc_program_free(p);
	}
}

static void reduce_counts_writers(void **state)
{
	uint64_t seed = 20261204;
	int several = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % 6),
			.events = (unsigned)(random_next(&seed) % 200),
			.vars = 1 + (unsigned)(random_next(&seed) % 4),
			.values = 1 + (unsigned)(random_next(&seed) % 5),
			.one_writer = (int)(random_next(&seed) % 2),
			.write_pct = (unsigned)(random_next(&seed) % 60),
			.rmw_pct = 20,
			.init_pct = 50,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		struct reduction rd;
		assert_non_null(p);
		assert_int_equal(reduce_plan(&rd, p), 0);
		assert_int_equal(rd.writers, vsc_program_writers(p));
		several += rd.writers > 1;
		reduce_free(&rd);
		vsc_program_free(p);
	}
	assert_true(several > 30); /* several writers met, not only 0 and 1 */
}

#define RMW_EXCESS_WHY "more RMWs read a value than there are writes of it to read"

/* Whether the analysis of p is refuted by the RMW count. */
static int refuted_by_rmw_excess(const struct vsc_program *p)
{
	struct analysis a;
	int refuted;

	assert_int_equal(analysis_build(&a, p), 0);
	refuted = a.refuted && strcmp(a.why, RMW_EXCESS_WHY) == 0;
	analysis_free(&a);
	return refuted;
}

/* T0 and T1 each one RMW of x reading a, writing b and c; init x is init
 * (-1: `init x ?`, -2: none). */
static struct vsc_program *two_rmws(int64_t init, int64_t a, int64_t b, int64_t c)
{
	struct vsc_program *p = named_program(2, 1);
	struct vsc_event e = { .kind = VSC_RMW, .var = 0, .value = a, .new_value = b };

	assert_non_null(p);
	if (init == -1)
		assert_int_equal(vsc_program_set_init(p, 0, VSC_INIT_UNKNOWN, 0), 0);
	else if (init >= 0)
		assert_int_equal(vsc_program_set_init(p, 0, VSC_INIT_KNOWN, init), 0);
	assert_int_equal(vsc_program_append(p, 0, &e, 0), 0);
	e.new_value = c;
	assert_int_equal(vsc_program_append(p, 1, &e, 0), 0);
	return p;
}

static void rmw_excess_fixed_cases(void **state)
{
	struct vsc_program *p;

	(void)state;
	p = two_rmws(0, 0, 1, 2); /* both read the initial 0: a lost update */
	assert_true(refuted_by_rmw_excess(p));
	vsc_program_free(p);
	p = two_rmws(0, 0, 0, 5); /* the first writes 0 back: the second reads it */
	assert_false(refuted_by_rmw_excess(p));
	vsc_program_free(p);
	p = two_rmws(-1, 7, 1, 2); /* `init x ?`: one of them may read it, not both */
	assert_true(refuted_by_rmw_excess(p));
	vsc_program_free(p);
}

/* A copy of p where each RMW, at a chance of one in three, reads what the
 * last RMW of its variable before it (in thread order) read: often a lost
 * update, sometimes still SC (that value written again). */
static struct vsc_program *lost_update_copy(const struct vsc_program *p, uint64_t *seed)
{
	struct vsc_program *q = vsc_program_new();
	int64_t init, last[4];
	int seen[4] = { 0 };

	assert_non_null(q);
	assert_true(vsc_program_var_count(p) <= 4);
	for (uint32_t v = 0; v < vsc_program_var_count(p); v++) {
		int kind = vsc_program_var_init(p, v, &init);
		assert_int_equal(vsc_program_add_var(q, vsc_program_var_name(p, v)), (int)v);
		assert_int_equal(vsc_program_set_init(q, v, kind, init), 0);
	}
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++) {
		const struct vsc_event *e = vsc_program_events(p, t);
		assert_int_equal(vsc_program_add_thread(q, vsc_program_thread_name(p, t)), (int)t);
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct vsc_event ev = e[i];
			if (ev.kind == VSC_RMW && seen[ev.var] && random_below(seed, 3) == 0)
				ev.value = last[ev.var];
			if (ev.kind == VSC_RMW) {
				last[ev.var] = ev.value;
				seen[ev.var] = 1;
			}
			assert_int_equal(vsc_program_append(q, t, &ev, 0), 0);
		}
	}
	return q;
}

static void rmw_excess_refutes_only_non_sc(void **state)
{
	uint64_t seed = 20261206;
	int refuted = 0;

	(void)state;
	for (int i = 0; i < 6000; i++) {
		struct random_shape shape = {
			.threads = 2 + random_below(&seed, 3),
			.events = 3 + random_below(&seed, 9),
			.vars = 1 + random_below(&seed, 2), /* at most 4: lost_update_copy() */
			.values = 1 + random_below(&seed, 3),
			.write_pct = 50 + random_below(&seed, 40),
			.rmw_pct = 60 + random_below(&seed, 40),
			.wrong_pct = random_below(&seed, 25),
			.init_pct = 70,
		};
		struct vsc_program *g = random_program(&seed, &shape), *p;
		struct brute_answer b;
		assert_non_null(g);
		p = lost_update_copy(g, &seed);
		vsc_program_free(g);
		if (refuted_by_rmw_excess(p)) {
			assert_int_equal(brute_solve(p, 50000000ULL, &b), 0);
			assert_false(b.consistent);
			refuted++;
		}
		vsc_program_free(p);
	}
	print_message("rmw excess: %d of 6000 programs refuted, all not SC\n", refuted);
	assert_true(refuted > 100); /* the rule is met, not dead */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pair_ids_match_a_list),
		cmocka_unit_test(reduce_counts_writers),
		cmocka_unit_test(rmw_excess_fixed_cases),
		cmocka_unit_test(rmw_excess_refutes_only_non_sc),
	};
	return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
