/* SPDX-License-Identifier: MIT */
/* The writes the reads see, searched (userspace/lib/hot_search.c, through
 * hot_var_search()): on thousands of small random programs of one
 * variable (2-7 threads, 1-4 values or values of their own, `init x v`,
 * `init x ?` and none, wrong reads, with and without @ts hints) every
 * witness passes the verifier and exact agrees, every refutation is
 * inconsistent by exact and by brute force where that finishes, and every
 * program made without RMWs is decided (those with RMWs are left open);
 * `auto`, which runs it after the witness and the refutation, agrees with
 * exact on every bound and --min. On 4-thread hammers (each thread
 * stores its loop counter and loads x back, so 4 threads write each
 * value) without hints, with one load that sees what memory held a while
 * before, it agrees with exact where exact finishes, and decides hammers
 * of 16,000 events without hints, and of 40,000 with two threads at a
 * time event by event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "brute.h"
#include "hot_refute.h"
#include "hot_var.h"
#include "least_check.h"
#include "random_program.h"
#include "testutil.h"

#define BRUTE_NODES 2000000ULL

static struct random_shape one_variable(uint64_t *seed, int i)
{
	return (struct random_shape){
		.threads = 2 + random_below(seed, 6),
		.events = 2 + random_below(seed, 23),
		.vars = 1,
		.values = 1 + random_below(seed, 4),
		.write_pct = 30 + random_below(seed, 40),
		.rmw_pct = i % 4 == 0 ? 25 : 0,
		.wrong_pct = random_below(seed, 3) ? 5 : 20,
		.init_pct = 70,
		.timestamps = random_below(seed, 2),
		.unique_last = i % 4 == 3,
	};
}

/* hot_var_search() on p against exact (and brute force for a
 * refutation). Returns its answer. */
static int search_agrees(const struct vsc_program *p)
{
	struct vsc_check_opts opts = { 0 };
	struct vsc_result *want = decide(p, "exact", -1, 0);
	int consistent = vsc_result_verdict(want) == VSC_CONSISTENT, r;
	struct brute_answer ans;
	struct budget b;
	uint32_t *witness;
	long pre = -1, verified = -1;
	char why[200] = "";

	budget_init(&b, &opts);
	r = hot_var_search(p, &b, &witness, &pre);
	assert_true(r == HOT_VAR_FOUND || r == HOT_VAR_OPEN || r == HOT_VAR_REFUTED);
	if (r == HOT_VAR_FOUND) {
		if (!consistent)
			dump_program("a witness where exact says inconsistent", p);
		assert_true(consistent);
		if (vsc_witness_verify(p, witness, p->event_count, &verified, why, sizeof(why))) {
			dump_program("the witness does not verify", p);
			fail_msg("%s", why);
		}
		assert_int_equal(verified, pre);
		free(witness);
	}
	if (r == HOT_VAR_REFUTED) {
		if (consistent || (brute_solve(p, BRUTE_NODES, &ans) == 0 && ans.consistent)) {
			dump_program("refuted, but an SC interleaving exists", p);
			fail();
		}
	}
	vsc_result_free(want);
	return r;
}

static void search_agrees_with_exact(void **state)
{
	uint64_t seed = 0x5ea4c4ULL;
	int answers[3] = { 0 }, programs = (int)test_share(4000), with_rmw = 0;

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed, i);
		struct vsc_program *p = random_program(&seed, &shape);
		int r, rmw;

		assert_non_null(p);
		rmw = shape.rmw_pct > 0; /* may have RMWs */
		r = search_agrees(p);
		with_rmw += rmw;
		answers[r]++;
		if (!rmw && r == HOT_VAR_OPEN) {
			dump_program("left open, made without RMWs", p);
			fail();
		}
		vsc_program_free(p);
	}
	print_message("searched: %d witnesses, %d refuted, %d open (%d made with RMWs)\n",
		      answers[HOT_VAR_FOUND], answers[HOT_VAR_REFUTED], answers[HOT_VAR_OPEN],
		      with_rmw);
}

/* auto, which searches where the witness and the refutation give up. */
static void auto_agrees_with_exact(void **state)
{
	uint64_t seed = 0xa0705eULL;
	int programs = (int)test_share(800);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = one_variable(&seed, i);
		struct vsc_program *p = random_program(&seed, &shape);
		long bounds[] = { -1, 0, 1, 2 };

		assert_non_null(p);
		auto_agrees_on_bounds(p, bounds, 4);
		vsc_program_free(p);
	}
}

/* k threads each store 0..n-1 into x and load it back, interleaved by
 * runs of random length (two threads at once, the other one on after an
 * event with chance 1 in `swap`: 2, event by event; 8, a recording's
 * runs), no hints; stale: loads in the second half see what memory held
 * `back` steps before instead (*made: how many differ from what it
 * held), at most `stale` of them. */
static struct vsc_program *stale_hammer(uint64_t *s, unsigned k, unsigned n, unsigned swap,
					unsigned back, int stale, int *made)
{
	struct vsc_program *p = named_program(k, 1);
	struct hammer h;
	int64_t *held = malloc(2 * k * n * sizeof(int64_t));
	unsigned stale_at = k * n + random_below(s, k * n), step = 0;

	assert_non_null(p);
	assert_non_null(held);
	assert_int_equal(hammer_start(&h, k, n), 0);
	*made = 0;
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	while (h.left) {
		unsigned t;
		struct vsc_event ev;
		if (random_below(s, swap) == 0) { /* the other of the two */
			t = h.a;
			h.a = h.b;
			h.b = t;
		}
		t = hammer_thread(s, &h, h.a);
		ev = hammer_step(&h, t);
		if (ev.kind == VSC_READ && step >= stale_at && *made < stale && step >= back &&
		    held[step - back] != ev.value && random_below(s, 4) == 0) {
			ev.value = held[step - back];
			++*made;
		}
		held[step++] = h.mem;
		assert_int_equal(vsc_program_append(p, t, &ev, 0), 0);
	}
	free(h.pos);
	free(held);
	return p;
}

/* Small 4-thread hammers with a stale load, against exact: every answer
 * right; counted, what the refutation of hot_refute.c alone refutes. */
static void stale_hammers_agree(void **state)
{
	uint64_t seed = 0x4a4e5ULL;
	int inconsistent = 0, refuted = 0, by_orders = 0, programs = (int)test_share(300);

	(void)state;
	for (int i = 0; i < programs; i++) {
		int made;
		struct vsc_program *p = stale_hammer(&seed, 4, 3 + random_below(&seed, 6), 2,
						     4 + random_below(&seed, 24),
						     1 + random_below(&seed, 3), &made);
		struct vsc_result *want = decide(p, "exact", -1, 0);
		struct vsc_check_opts opts = { 0 };
		struct budget b;
		int r = search_agrees(p);

		assert_int_not_equal(r, HOT_VAR_OPEN);
		inconsistent += vsc_result_verdict(want) == VSC_INCONSISTENT;
		refuted += r == HOT_VAR_REFUTED;
		budget_init(&b, &opts);
		by_orders += hot_refute(p, &b) == HOT_REFUTED;
		vsc_result_free(want);
		vsc_program_free(p);
	}
	print_message("4-thread stale hammers: %d of %d inconsistent, %d refuted (%d by the "
		      "orders alone)\n",
		      inconsistent, programs, refuted, by_orders);
}

/* hot_var_search() on p, its witness verified with the count it
 * claims. Returns its answer. */
static int search_verified(const struct vsc_program *p)
{
	struct vsc_check_opts opts = { 0 };
	struct budget b;
	uint32_t *witness;
	long pre, verified = -1;
	int r;

	budget_init(&b, &opts);
	r = hot_var_search(p, &b, &witness, &pre);
	if (r == HOT_VAR_FOUND) {
		assert_int_equal(vsc_witness_verify(p, witness, p->event_count, &verified, NULL, 0),
				 0);
		assert_int_equal(verified, pre);
		free(witness);
	}
	return r;
}

/* The same: a witness (1) or none (0); p is freed. */
static int search_finds(struct vsc_program *p)
{
	int found = search_verified(p) == HOT_VAR_FOUND;

	vsc_program_free(p);
	return found;
}

/* 16,000-event 4-thread hammers without hints: decided (the witness from
 * places in the threads closes cycles on such traces). */
static void hammers_without_hints_decided(void **state)
{
	uint64_t seed = 0x4a0415ULL;
	int found = 0, refuted = 0;

	(void)state;
	for (int i = 0; i < 8; i++) {
		int made;
		struct vsc_program *p = stale_hammer(&seed, 4, 2000, 8, 200, i % 2, &made);
		int r = search_verified(p);

		if (!made)
			assert_int_equal(r, HOT_VAR_FOUND);
		found += r == HOT_VAR_FOUND;
		refuted += r == HOT_VAR_REFUTED;
		vsc_program_free(p);
	}
	print_message("16,000-event hammers without hints: %d witnesses, %d refuted of 8\n", found,
		      refuted);
}

/* The search without a bound finds p's witness, which verifies with the
 * preemptions it claims; p is freed. */
static void assert_found_and_verified(struct vsc_program *p)
{
	assert_true(search_finds(p));
}

/* 40,000-event 4-thread hammers, two threads at a time event by event,
 * no hints: every read of another thread's value has three writes to
 * choose from, dense; decided (the search stopped at its work cap on
 * these, thrashing among the latest levels, before its conflicts took
 * the path of least deepest level). */
static void dense_hammers_decided(void **state)
{
	uint64_t seed = 0xde45eULL;

	(void)state;
	for (int i = 0; i < 2; i++) {
		int made;
		struct vsc_program *p = stale_hammer(&seed, 4, 5000, 2, 0, 0, &made);
		assert_found_and_verified(p);
	}
}

/* One event in STALLED dated up to STALL steps off: a probe taken off its
 * CPU between the access and its log (a store logged that much before, a
 * load after). */
#define STALLED 1000
#define STALL 20000
#define FAR_HINTED 12

/* A generated SC run of one variable, the shape of `vsc gen sc --vars
 * 1`: 4 threads run in `slices` slices (the next a different thread),
 * each event a load of what memory holds or a store of one of `values`
 * values. A value is stored by many threads far apart, and only the first
 * load of a slice sees another thread's store. Jitter (0: none): each
 * event is dated up to jitter / 2 steps off its place, and some much
 * further (STALL), times increasing along each thread; timed: the dates
 * are its hints (else the same program without). */
static struct vsc_program *sliced_run_dated(uint64_t *s, unsigned events, unsigned values,
					    unsigned slices, unsigned jitter, int timed)
{
	struct vsc_program *p = named_program(4, 1);
	uint64_t last[4] = { 0 };
	unsigned t = 0;
	int64_t mem = 0;

	assert_non_null(p);
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	for (unsigned i = 0; i < events; i++) {
		struct vsc_event ev = { .kind = VSC_READ, .var = 0, .value = mem };
		uint64_t at = 8 * ((uint64_t)i + jitter);
		if (random_below(s, slices ? events / slices : events) == 0)
			t = (t + 1 + random_below(s, 3)) % 4;
		if (random_below(s, 2)) {
			ev.kind = VSC_WRITE;
			ev.value = mem = random_below(s, values);
		}
		if (jitter && random_below(s, STALLED) == 0)
			at = ev.kind == VSC_WRITE
				     ? at - 8 * random_below(s, at / 8 < STALL ? at / 8 : STALL)
				     : at + 8 * random_below(s, STALL);
		else if (jitter)
			at += 8 * random_below(s, jitter) - 4 * (uint64_t)jitter;
		last[t] = at > last[t] ? at : last[t] + 1;
		assert_int_equal(vsc_program_append(p, t, &ev, timed ? last[t] : 0), 0);
	}
	return p;
}

static struct vsc_program *sliced_run(uint64_t *s, unsigned events, unsigned values,
				      unsigned slices)
{
	return sliced_run_dated(s, events, values, slices, 0, 0);
}

/* Generated sliced runs (50,000 events, 1,000 values, 200 slices) without
 * hints: decided with a verified witness. The search over every write of
 * a read's value took far writes that fit at once but left later reads
 * none, and stopped at its work cap; the first passes over the nearest
 * writes find one. */
static void sliced_runs_decided(void **state)
{
	uint64_t seed = 0x511ce5ULL;

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct vsc_program *p = sliced_run(&seed, 50000, 1000, 200);
		assert_found_and_verified(p);
	}
}

/* Sliced runs whose values are each stored more than the search's 64
 * candidates (60,000 events, 150 values: about 200 stores a value),
 * without hints: decided with a verified witness. Such reads were left
 * open; the first passes take a read's nearest writes among all of its
 * value's, and the writes they may take keep their threads' order. */
static void often_written_values_decided(void **state)
{
	uint64_t seed = 0x0f7e2ULL;

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct vsc_program *p = sliced_run(&seed, 60000, 150, 30);
		assert_found_and_verified(p);
	}
}

/* Hints far off (up to 512 steps either way, one in 1,000 up to 20,000
 * steps, as probes date a recording's events) never lose a witness the
 * same program without hints gets: on 12 sliced runs (50,000 events,
 * 1,000 values) the search by the hints found none, the search by the
 * places in the threads 7; so the search by the places follows the search
 * by the hints when that one gives up. */
static void far_hints_lose_nothing(void **state)
{
	uint64_t seed = 0x511ce5ULL;
	int by_hints = 0, by_places = 0, lost = 0;

	(void)state;
	for (int i = 0; i < FAR_HINTED; i++) {
		uint64_t again = seed;
		int places = search_finds(sliced_run_dated(&seed, 20000, 400, 80, 1024, 0));
		int hints = search_finds(sliced_run_dated(&again, 20000, 400, 80, 1024, 1));
		by_places += places;
		by_hints += hints;
		lost += places && !hints;
	}
	print_message("far hints: %d witnesses with the hints, %d without, of %d (%d lost)\n",
		      by_hints, by_places, FAR_HINTED, lost);
	assert_int_equal(lost, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(search_agrees_with_exact),
		cmocka_unit_test(auto_agrees_with_exact),
		cmocka_unit_test(stale_hammers_agree),
		cmocka_unit_test(far_hints_lose_nothing),
		cmocka_unit_test(hammers_without_hints_decided),
		cmocka_unit_test(dense_hammers_decided),
		cmocka_unit_test(sliced_runs_decided),
		cmocka_unit_test(often_written_values_decided),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
