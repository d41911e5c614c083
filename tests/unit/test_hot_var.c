/* SPDX-License-Identifier: MIT */
/* One hot variable (userspace/lib/hot_var.c): on thousands of small random
 * programs of one variable (many threads, few values, `init ?`, RMWs,
 * wrong reads; with and without @ts hints) every witness it gives passes
 * the verifier and exact agrees for the same bound (and --min), and it
 * must answer a good share; auto on such programs agrees with exact for
 * every bound and --min (the witness is its upper bound there). A
 * recording-shaped trace (4 threads storing their loop counter and
 * loading it back, hints jittered) gets a witness; with one read of a
 * value nobody writes, none, and auto says inconsistent. The lower bound
 * (hot_bound.c) is at most exact's least on every random program and on
 * small recording-shaped ones, where it is mostly the least itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hot_bound.h"
#include "hot_merge.h"
#include "hot_var.h"
#include "least_check.h"
#include "random_program.h"
#include "step_alone.h"
#include "testutil.h"

/* hot_var_witness() as a step of auto: it answers when its witness fits
 * the question (--min: only with no preemption). */
static int hot_step(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res)
{
	uint32_t *witness;
	long pre;
	int r = hot_var_witness(p, b, &witness, &pre);

	if (r != HOT_VAR_FOUND)
		return r;
	if (q->minimize ? pre != 0 : q->bound >= 0 && pre > q->bound) {
		free(witness);
		return HOT_VAR_OPEN;
	}
	res->verdict = VSC_CONSISTENT;
	res->witness = witness;
	res->witness_length = p->event_count;
	res->preemptions = res->lower = pre;
	return HOT_VAR_FOUND;
}

static struct random_shape one_variable(uint64_t *seed)
{
	return (struct random_shape){
		.threads = 2 + random_below(seed, 6),
		.events = 2 + random_below(seed, 13),
		.vars = 1,
		.values = 1 + random_below(seed, 4),
		.write_pct = 30 + random_below(seed, 40),
		.rmw_pct = random_below(seed, 2) ? 25 : 0,
		.wrong_pct = random_below(seed, 3) ? 0 : 10,
		.init_pct = 70,
		.timestamps = random_below(seed, 2),
	};
}

static void hot_agrees_with_exact(void **state)
{
	uint64_t seed = 0x407fa11ULL;
	int answered = 0, asked = 0, programs = (int)test_share(3000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed);
		struct vsc_program *p = random_program(&seed, &shape);
		long bounds[] = { -1, 0, 1, 2 };

		assert_non_null(p);
		for (unsigned j = 0; j < 5; j++) {
			long bound = j < 4 ? bounds[j] : -1, pre = -1;
			int minimize = j == 4;
			int v = step_alone_verdict(hot_step, HOT_VAR_FOUND, HOT_VAR_OPEN, p, bound,
						   minimize, &pre);
			asked++;
			if (v < 0)
				continue;
			answered++;
			step_alone_agrees(p, bound, minimize, pre);
		}
		vsc_program_free(p);
	}
	print_message("one hot variable answered %d of %d questions\n", answered, asked);
	assert_true(answered > asked / 4);
}

/* auto, through which the witness goes, against exact. */
static void auto_agrees_on_one_variable(void **state)
{
	uint64_t seed = 0x5eed407ULL;
	int programs = (int)test_share(600);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed);
		struct vsc_program *p = random_program(&seed, &shape);
		long bounds[] = { -1, 0, 1, 3 };

		assert_non_null(p);
		auto_agrees_on_bounds(p, bounds, 4);
		vsc_program_free(p);
	}
}

/* k threads each store 0..n-1 into x and load it back, interleaved by
 * runs of random length (two threads at once, event by event), hints
 * jittered by up to 3 steps; bad: one load sees -1, which nobody stores. */
static struct vsc_program *hammer(uint64_t *s, unsigned k, unsigned n, int bad)
{
	struct vsc_program *p = named_program(k, 1);
	struct hammer h;
	uint64_t clock = 0;

	assert_non_null(p);
	assert_int_equal(hammer_start(&h, k, n), 0);
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	while (h.left) {
		unsigned t = hammer_thread(s, &h, random_below(s, 2) ? h.a : h.b);
		int last_half = h.left == k * n;
		struct vsc_event ev = hammer_step(&h, t);
		if (bad && last_half)
			ev.value = -1;
		clock += 100;
		assert_int_equal(vsc_program_append(p, t, &ev, clock + random_below(s, 300)), 0);
	}
	free(h.pos);
	return p;
}

/* The lower bound against exact's least: never above it. Returns 1 when
 * it is the least. */
static int bound_holds(const struct vsc_program *p)
{
	struct vsc_result *want = decide(p, "exact", -1, 1);
	long lower = hot_lower_bound(p), least = vsc_result_preemptions(want);
	int met = lower == least;

	assert_true(lower >= 0);
	if (vsc_result_verdict(want) == VSC_CONSISTENT && lower > least) {
		dump_program("the lower bound is above the least", p);
		fail_msg("lower bound %ld, least %ld", lower, least);
	}
	vsc_result_free(want);
	return met;
}

static void bound_at_most_least(void **state)
{
	uint64_t seed = 0xb0a4d5ULL;
	int met = 0, programs = (int)test_share(3000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed);
		struct vsc_program *p = random_program(&seed, &shape);

		assert_non_null(p);
		met += bound_holds(p);
		vsc_program_free(p);
	}
	print_message("the lower bound met the least on %d of %d programs\n", met, programs);
}

/* hot_merge.c on exact's witnesses (no bound): what it gives is SC, by
 * the verifier, with at most their preemptions, and often fewer. */
static void merge_keeps_sc(void **state)
{
	uint64_t seed = 0x3e4a6eULL;
	int fewer = 0, programs = (int)test_share(3000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed);
		struct vsc_program *p = random_program(&seed, &shape);
		struct vsc_result *res = decide(p, "exact", -1, 0);
		const uint32_t *w;
		size_t n = vsc_result_witness(res, &w);
		long pre = vsc_result_preemptions(res), after = -1;
		uint32_t *copy = malloc((n ? n : 1) * sizeof(uint32_t));
		char why[200] = "";

		assert_non_null(copy);
		if (vsc_result_verdict(res) == VSC_CONSISTENT) {
			memcpy(copy, w, n * sizeof(uint32_t));
			assert_true(hot_merge_slices(p, copy, n) >= 0);
			if (vsc_witness_verify(p, copy, n, &after, why, sizeof(why))) {
				dump_program("the joined slices are not SC", p);
				fail_msg("%s", why);
			}
			assert_true(after <= pre);
			fewer += after < pre;
		}
		free(copy);
		vsc_result_free(res);
		vsc_program_free(p);
	}
	print_message("joined slices: fewer preemptions on %d of %d programs\n", fewer, programs);
}

static struct vsc_program *hammer(uint64_t *s, unsigned k, unsigned n, int bad);

/* Small recording-shaped programs (2-4 threads storing 1-8 loop counters
 * and loading them back): the bound holds, meets the least mostly, and
 * auto's --min agrees with exact's. */
static void bound_on_small_hammers(void **state)
{
	uint64_t seed = 0x4a3b0dULL;
	int met = 0, found = 0, exact = 0, programs = (int)test_share(300);
	struct vsc_check_opts opts = { 0 };
	struct budget b;
	uint32_t *witness;
	long pre;

	(void)state;
	budget_init(&b, &opts);
	for (int i = 0; i < programs; i++) {
		struct vsc_program *p =
			hammer(&seed, 2 + random_below(&seed, 3), 1 + random_below(&seed, 8), 0);
		struct vsc_result *got = decide(p, "auto", -1, 1),
				  *want = decide(p, "exact", -1, 1);

		met += bound_holds(p);
		if (hot_var_witness(p, &b, &witness, &pre) == HOT_VAR_FOUND) {
			found++;
			exact += pre == vsc_result_preemptions(want);
			free(witness);
		}
		assert_int_equal(vsc_result_verdict(got), VSC_CONSISTENT);
		assert_int_equal(vsc_result_verdict(want), VSC_CONSISTENT);
		assert_int_equal(vsc_result_preemptions(got), vsc_result_preemptions(want));
		vsc_result_free(got);
		vsc_result_free(want);
		vsc_program_free(p);
	}
	print_message(
		"the bound met the least on %d of %d hammers; witnesses %d, %d at the least\n", met,
		programs, found, exact);
	assert_true(met > programs / 2);
}

static void hammer_gets_a_witness(void **state)
{
	uint64_t seed = 0x4a33e5ULL;

	(void)state;
	for (int i = 0; i < 6; i++) {
		struct vsc_program *p = hammer(&seed, 4, 1000, 0), *bad = hammer(&seed, 4, 1000, 1);
		long pre = -1;
		struct vsc_result *res;

		assert_int_equal(
			step_alone_verdict(hot_step, HOT_VAR_FOUND, HOT_VAR_OPEN, p, -1, 0, &pre),
			VSC_CONSISTENT);
		assert_int_equal(
			step_alone_verdict(hot_step, HOT_VAR_FOUND, HOT_VAR_OPEN, bad, -1, 0, &pre),
			-1);
		res = decide(bad, "auto", -1, 0);
		assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
		vsc_result_free(res);
		vsc_program_free(p);
		vsc_program_free(bad);
	}
}

/* A limit that stops the second run (hot_run.c's, the last to spend the
 * budget) keeps the first run's witness when it verified: found, where it
 * was -ETIME (unknown). The cap is the work a whole call spends: the
 * second run's last look at the budget reaches it. */
static void limit_in_second_run_keeps_first(void **state)
{
	uint64_t seed = 0x1e7f1ULL;

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct vsc_program *p = hammer(&seed, 4, 2000, 0);
		struct vsc_check_opts opts = { 0 };
		struct budget b;
		uint32_t *witness;
		long pre, verified = -1;
		unsigned long whole;

		assert_non_null(p);
		budget_init(&b, &opts);
		assert_int_equal(hot_var_witness(p, &b, &witness, &pre), HOT_VAR_FOUND);
		free(witness);
		whole = b.steps;
		budget_init(&b, &opts);
		b.work_cap = whole;
		assert_int_equal(hot_var_witness(p, &b, &witness, &pre), HOT_VAR_FOUND);
		assert_int_equal(vsc_witness_verify(p, witness, p->event_count, &verified, NULL, 0),
				 0);
		assert_int_equal(verified, pre);
		free(witness);
		vsc_program_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hot_agrees_with_exact),
		cmocka_unit_test(auto_agrees_on_one_variable),
		cmocka_unit_test(hammer_gets_a_witness),
		cmocka_unit_test(bound_at_most_least),
		cmocka_unit_test(bound_on_small_hammers),
		cmocka_unit_test(merge_keeps_sc),
		cmocka_unit_test(limit_in_second_run_keeps_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
