/* SPDX-License-Identifier: MIT */
/* The default solver (analysis + engine) against the exact search on
 * thousands of small random programs, 1-Writer and not, with RMW and both
 * kinds of init: same verdict with and without a bound, same least number of
 * preemptions, and every witness passes the verifier with the count the
 * solver claims. The SAT solver (every bound) on the same kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "random_program.h"
#include "solver.h"
#include "testutil.h"
#include "unique_run.h"

/* Questions the order of threads (-p 0) does not answer, where the orders
 * of events must (sat_bound.c): a bound above 0 or none, and exact says
 * inconsistent or needs a preemption (counted for every solver; the SAT
 * test reads it). */
static int beyond_whole_threads;

/* got against exact's answer to the same question; both freed. */
static void compare_result(const struct vsc_program *p, const char *solver, long bound,
			   int minimize, struct vsc_result *got)
{
	struct vsc_result *want = decide(p, "exact", bound, minimize);
	const uint32_t *w;
	size_t n = vsc_result_witness(got, &w);
	long pre = -1;
	char why[200] = "";

	if (vsc_result_verdict(want) != vsc_result_verdict(got) ||
	    (minimize && vsc_result_preemptions(want) != vsc_result_preemptions(got))) {
		vsc_program_write(p, stderr);
		fail_msg("%s, bound %ld min %d: exact says %d (%ld), %s says %d (%ld)", solver,
			 bound, minimize, vsc_result_verdict(want), vsc_result_preemptions(want),
			 solver, vsc_result_verdict(got), vsc_result_preemptions(got));
	}
	beyond_whole_threads += bound != 0 && (vsc_result_verdict(want) == VSC_INCONSISTENT ||
					       (minimize && vsc_result_preemptions(want) > 0));
	if (vsc_result_verdict(got) == VSC_CONSISTENT) {
		if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)) != 0) {
			vsc_program_write(p, stderr);
			fail_msg("%s: bad witness: %s", solver, why);
		}
		assert_int_equal(pre, vsc_result_preemptions(got));
		if (bound >= 0)
			assert_true(pre <= bound);
	}
	vsc_result_free(want);
	vsc_result_free(got);
}

static void compare_on(const struct vsc_program *p, const char *solver, long bound, int minimize)
{
	compare_result(p, solver, bound, minimize, decide(p, solver, bound, minimize));
}

/* The order of events with a bound by the gaps (order_gaps.c), for any
 * question, -p 0 included: the `sat` solver takes the gaps, and asks -p 0
 * of the order of events, only with 64 threads or more (too many for
 * exact; below that, the slots). */
static void compare_gaps(const struct vsc_program *p, long bound, int minimize)
{
	VSC_OPTS(vsc_check_opts, opts, .want_witness = 1);
	struct query q = { .bound = bound, .minimize = minimize, .want_witness = 1, .jobs = 1 };
	struct vsc_result *res = calloc(1, sizeof(*res));
	struct budget b;

	assert_non_null(res);
	budget_init(&b, &opts);
	res->preemptions = res->lower = -1;
	assert_int_equal(program_unpack(p), 0);
	assert_int_equal(sat_decide_bounded_by(p, &q, &b, res, 0, 1), 0);
	compare_result(p, "sat by the gaps", bound, minimize, res);
}

static void run_shapes(uint64_t seed, int count, int one_writer, unsigned max_threads,
		       unsigned max_events, unsigned min_values, unsigned spread)
{
	int timestamps = (seed >> 28) & 1; /* half the families have @ts hints */

	count = (int)test_share((unsigned)count);
	for (int i = 0; i < count; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % max_threads),
			.events = 1 + (unsigned)(random_next(&seed) % max_events),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = min_values + (unsigned)(random_next(&seed) % spread),
			.one_writer = one_writer,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 8),
			.init_pct = i % 2 ? 60 : 0,
			.timestamps = timestamps,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		compare_on(p, "auto", -1, 0);
		compare_on(p, "auto", (long)(random_next(&seed) % 4), 0);
		compare_on(p, "auto", -1, 1);
		compare_on(p, "auto", 2, 1);
		vsc_program_free(p);
	}
}

static void run_family(uint64_t seed, int count, int one_writer, unsigned max_threads,
		       unsigned max_events)
{
	run_shapes(seed, count, one_writer, max_threads, max_events, 2, 3);
}

/* Two or three values, longer threads: reads with many writes to choose
 * from, where the forced orders of one-writer variables do most of the work. */
static void auto_agrees_on_few_values(void **state)
{
	(void)state;
	run_shapes(0x8888beefULL, 1500, 1, 4, 18, 1, 2);
	run_shapes(0x9999beefULL, 1000, 0, 3, 16, 1, 2);
}

static void auto_agrees_on_one_writer(void **state)
{
	(void)state;
	run_family(0x1111beefULL, 3000, 1, 4, 12);
}

static void auto_agrees_on_many_writers(void **state)
{
	(void)state;
	run_family(0x2222beefULL, 3000, 0, 4, 11);
}

/* The SAT solver against exact on the same kind of programs: -p 0 (the
 * order of threads, with auto beside it), and every other question (no
 * bound, bounds 1 to max_bound, --min alone and under a bound: the order
 * of events, a bound below the first witness's count by the gaps'
 * counter). Returns how many questions needed the orders of events. */
static int sat_family(uint64_t seed, int count, unsigned max_threads, unsigned max_events,
		      long max_bound)
{
	beyond_whole_threads = 0;
	count = (int)test_share((unsigned)count);
	for (int i = 0; i < count; i++) {
		struct random_shape shape = {
			.threads = 1 + (unsigned)(random_next(&seed) % max_threads),
			.events = 1 + (unsigned)(random_next(&seed) % max_events),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = 2 + (unsigned)(random_next(&seed) % 3),
			.one_writer = i % 2,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 8),
			.init_pct = i % 4 < 2 ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		compare_on(p, "sat", 0, 0);
		compare_on(p, "sat", 0, 1);
		compare_on(p, "auto", 0, 0);
		compare_on(p, "sat", -1, 0);
		for (long bound = 1; bound <= max_bound; bound++)
			compare_on(p, "sat", bound, 0);
		compare_on(p, "sat", -1, 1);
		compare_on(p, "sat", 2, 1);
		compare_on(p, "sat", 1 + i % 4, 1);
		compare_on(p, "sat", 1L << 30, 0); /* more than any interleaving has: no bound */
		for (long bound = 0; bound <= max_bound; bound++)
			compare_gaps(p, bound, 0);
		compare_gaps(p, -1, 1);
		compare_gaps(p, 0, 1);
		compare_gaps(p, 1 + i % 4, 1);
		vsc_program_free(p);
	}
	print_message("sat: %d of %ld questions needed the orders of events\n",
		      beyond_whole_threads, count * (12 + 2 * max_bound));
	return beyond_whole_threads;
}

static void sat_agrees_with_exact(void **state)
{
	(void)state;
	assert_true(sat_family(0x5a75a7ULL, 3000, 5, 12, 3) > (int)test_share(3000));
	/* fewer, longer threads (many preemptions to count); more threads */
	assert_true(sat_family(0x5a7b0002ULL, 1000, 3, 16, 5) > (int)test_share(1000));
	assert_true(sat_family(0x5a7b0003ULL, 300, 6, 22, 5) > (int)test_share(300));
	assert_true(sat_family(0x5a7b0004ULL, 300, 3, 30, 8) > (int)test_share(300));
}

/* Longer threads, fewer of them: deep searches, many preemptions. */
static void auto_agrees_on_long_threads(void **state)
{
	(void)state;
	run_family(0x3333beefULL, 400, 0, 2, 24);
	run_family(0x4444beefULL, 400, 1, 3, 20);
	run_family(0x5555beefULL, 400, 0, 3, 20);
	run_family(0x7777beefULL, 1500, 1, 4, 14);
}

/* Token chains, for the unique run (userspace/lib/unique_run.c): a thread
 * reads the token's last value, perhaps works on a variable of its own,
 * and writes the next value, where the next thread reads it. Most have one
 * SC interleaving at most; perturbed ones (a wrong value, a value written
 * twice, init lines, RMWs, a thread starting with a write) have several or
 * none. auto must agree with exact on them, and the unique run must have
 * decided a good share of them itself (consistent and inconsistent). */

/* The token (variables 0..tokens-1) passed `steps` times among k threads;
 * variable tokens + t is thread t's own. */
static struct vsc_program *token_chain(uint64_t *s, unsigned k, unsigned tokens, unsigned steps)
{
	struct vsc_program *p = vsc_program_new();
	unsigned holder = random_below(s, k), var = 0, perturb = random_below(s, 4);
	int64_t value = 1;
	char name[16];

	for (unsigned t = 0; t < k; t++) {
		snprintf(name, sizeof(name), "T%u", t);
		vsc_program_add_thread(p, name);
	}
	for (unsigned v = 0; v < tokens + k; v++) {
		snprintf(name, sizeof(name), "x%u", v);
		vsc_program_add_var(p, name);
		if (random_below(s, 8) == 0)
			vsc_program_set_init(p, v,
					     random_below(s, 2) ? VSC_INIT_KNOWN : VSC_INIT_UNKNOWN,
					     random_below(s, 3));
	}
	append_event(p, holder, VSC_WRITE, var, value, 0);
	for (unsigned i = 0; i < steps; i++) {
		unsigned next = random_below(s, k), nvar = random_below(s, tokens);
		int64_t seen = perturb == 1 && random_below(s, 12) == 0 ? value + 1 : value;
		int64_t nvalue = perturb == 2 && random_below(s, 8) == 0 ? value : value + 1;

		if (random_below(s, 3) == 0)
			append_event(p, next, VSC_RMW, var, seen, nvalue);
		else {
			append_event(p, next, VSC_READ, var, seen, 0);
			if (random_below(s, 4) == 0)
				append_event(p, next, VSC_WRITE, tokens + next, (int64_t)i, 0);
			append_event(p, next, VSC_WRITE, nvar, nvalue, 0);
		}
		value = nvalue;
		var = nvar;
	}
	if (perturb == 3) /* a thread that starts with a write: two can start */
		append_event(p, random_below(s, k), VSC_WRITE, var, 99, 0);
	return p;
}

/* What the unique run alone says about p: -1 a choice, else the verdict. */
static int unique_verdict(const struct vsc_program *p)
{
	struct query q = { .bound = -1, .minimize = 1, .want_witness = 1 };
	VSC_OPTS(vsc_check_opts, opts);
	struct vsc_result res = { .preemptions = -1, .lower = -1 };
	struct budget b;
	int r;

	budget_init(&b, &opts);
	r = unique_run_solve(p, &q, &b, &res);
	assert_true(r == UNIQUE_RUN_DECIDED || r == UNIQUE_RUN_CHOICE);
	free(res.witness);
	return r == UNIQUE_RUN_CHOICE ? -1 : (int)res.verdict;
}

static void unique_run_agrees_with_exact(void **state)
{
	uint64_t seed = 0x0a1b2c3d4e5fULL;
	int decided[2] = { 0, 0 }, programs = (int)test_share(4000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		unsigned k = 2 + random_below(&seed, 4), tokens = 1 + random_below(&seed, 2);
		struct vsc_program *p = token_chain(&seed, k, tokens, 1 + random_below(&seed, 7));
		int v = unique_verdict(p);

		if (v >= 0)
			decided[v == VSC_INCONSISTENT]++;
		compare_on(p, "auto", -1, 0);
		compare_on(p, "auto", (long)random_below(&seed, 5), 0);
		compare_on(p, "auto", -1, 1);
		compare_on(p, "auto", 2, 1);
		vsc_program_free(p);
	}
	/* the programs are made for it: it must decide many, both ways */
	print_message("unique run: %d consistent, %d inconsistent of %d\n", decided[0], decided[1],
		      programs);
	assert_true(decided[0] > programs / 4);
	assert_true(decided[1] > programs / 50);
}

/* Bounds asked of one engine, in this order (ENGINE_UNBOUNDED: none): the
 * facts one search leaves serve the next, up and down. */
static const long engine_bounds[] = { 2, 0, ENGINE_UNBOUNDED, 3, 1, 5, 4 };

/* engine_search() on p at each of engine_bounds, its tables of failed
 * states held within table_bytes (0: the default), against exact. The
 * bounded table keeps searched states alone (a state the lower bound cuts
 * is not kept), so it holds no more than the nodes. Returns how many
 * searches ran with a table at its limit. */
static int engine_against_exact(const struct vsc_program *p, size_t table_bytes)
{
	VSC_OPTS(vsc_check_opts, opts, .want_witness = 1);
	struct forced forced;
	struct analysis a;
	struct engine g;
	struct budget b;
	int built, full = 0;

	budget_init(&b, &opts);
	assert_int_equal(program_unpack(p), 0);
	assert_int_equal(analysis_build(&a, p), 0);
	if (a.refuted) {
		analysis_free(&a);
		return 0;
	}
	built = forced_build(&forced, p, &a, &b, FORCED_BOUND);
	assert_true(built == 0 || built == 1);
	if (built == 0 && forced.refuted) {
		forced_free(&forced);
		analysis_free(&a);
		return 0;
	}
	assert_int_equal(engine_init(&g, p, &a, built == 0 ? &forced : NULL, &b), 0);
	if (table_bytes)
		engine_limit_tables(&g, table_bytes);
	for (size_t i = 0; i < sizeof(engine_bounds) / sizeof(engine_bounds[0]); i++) {
		long bound = engine_bounds[i], pre = -1;
		struct vsc_result *want = decide(p, "exact", bound, 0);
		int r = engine_search(&g, bound);
		char why[200] = "";

		if (r != (int)vsc_result_verdict(want)) {
			vsc_program_write(p, stderr);
			fail_msg("engine, table of %zu bytes, bound %ld: exact says %d, engine %d",
				 table_bytes, bound, vsc_result_verdict(want), r);
		}
		if (r == VSC_CONSISTENT) {
			if (vsc_witness_verify(p, g.trail, g.n, &pre, why, sizeof(why)) != 0) {
				vsc_program_write(p, stderr);
				fail_msg("engine: bad witness: %s", why);
			}
			if (bound >= 0)
				assert_true(pre <= bound);
		}
		for (int t = 0; t < 2; t++) {
			if (table_bytes)
				assert_true(state_table_bytes(&g.table[t]) <= table_bytes);
			full += g.table[t].count == g.table[t].limit;
		}
		assert_true(g.table[1].count <= g.nodes);
		vsc_result_free(want);
	}
	engine_free(&g);
	if (built == 0)
		forced_free(&forced);
	analysis_free(&a);
	return full;
}

/* The search with tables of failed states that hold a few states (256
 * bytes), a few more, and the default: the same verdicts as exact at every bound, asked in turn
 * of one engine, and every witness within its bound. A dropped state only
 * costs its search again. */
static void engine_small_tables_agree(void **state)
{
	uint64_t seed = 0x7ab1e5ULL;
	int full = 0, programs = (int)test_share(600);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 2 + (unsigned)(random_next(&seed) % 3),
			.events = 8 + (unsigned)(random_next(&seed) % 14),
			.vars = 1 + (unsigned)(random_next(&seed) % 3),
			.values = 1 + (unsigned)(random_next(&seed) % 3),
			.one_writer = i % 4 == 0,
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.wrong_pct = (unsigned)(random_next(&seed) % 6),
			.init_pct = i % 2 ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		full += engine_against_exact(p, 256);
		full += engine_against_exact(p, 1024);
		engine_against_exact(p, 0);
		vsc_program_free(p);
	}
	/* the small tables were full, and dropped states, in many searches */
	print_message("engine: %d searches with a table at its limit\n", full);
	assert_true(full > programs);
}

/* A limit set on a table that holds states already (no marks were kept
 * for them): adding past the limit drops states, and every state added is
 * found at once; the states the table keeps are the ones it finds. */
static void state_table_limited_when_filled(void **state)
{
	struct state_table t;
	uint32_t key[3];
	int added;

	(void)state;
	assert_int_equal(state_table_init(&t, 3), 0);
	for (uint32_t i = 0; i < 40; i++) {
		key[0] = i, key[1] = i * 7, key[2] = ~i;
		assert_true(state_table_get(&t, key, &added) >= 0);
		assert_int_equal(added, 1);
	}
	state_table_limit_bytes(&t, 512);
	assert_true(t.limit < t.count);
	for (uint32_t i = 40; i < 400; i++) {
		int64_t at;
		key[0] = i, key[1] = i * 7, key[2] = ~i;
		at = state_table_get(&t, key, &added);
		assert_true(at >= 0);
		assert_int_equal(added, 1);
		assert_int_equal(state_table_find(&t, key), at);
		if (i % 3 == 0) { /* an older state looked up: the clock keeps it longer */
			key[0] = i - 1, key[1] = (i - 1) * 7, key[2] = ~(i - 1);
			state_table_find(&t, key);
		}
	}
	assert_int_equal(t.count, 40);
	for (uint32_t i = 0, found = 0; i < 400; i++) {
		key[0] = i, key[1] = i * 7, key[2] = ~i;
		found += state_table_find(&t, key) >= 0;
		if (i == 399)
			assert_int_equal(found, t.count);
	}
	state_table_free(&t);
}

/* A random value key variable i of g may hold: its initial value, a pair
 * an event on it reads or writes, or none. */
static uint32_t random_value(uint64_t *seed, const struct engine *g, uint32_t i)
{
	uint32_t x = g->key_vars[i], pick = random_below(seed, 8);

	if (pick == 0)
		return g->a->init[x];
	if (pick == 1)
		return VALUE_NONE;
	for (int tries = 0; tries < 64; tries++) {
		uint32_t t = random_below(seed, g->k), len = g->p->threads[t].length, e;
		const struct event_pairs *ep;

		if (!len)
			continue;
		e = random_below(seed, len);
		ep = &g->a->pairs[t][e];
		if (g->p->threads[t].events[e].var != x)
			continue;
		return ep->write != PAIR_NONE && (ep->read == PAIR_NONE || random_below(seed, 2))
			       ? ep->write
			       : ep->read;
	}
	return VALUE_UNDECIDED;
}

/* Two states that differ in one field (a thread's position, the running
 * thread, a key variable's value) never get the same packed key: the
 * tables of failed states compare keys alone, so a shared key would make
 * a state that fails stand for one that does not. */
static void engine_keys_one_to_one(void **state)
{
	uint64_t seed = 0x6b657973ULL;
	int compared = 0, programs = (int)test_share(300);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 2 + (unsigned)(random_next(&seed) % 4),
			.events = 8 + (unsigned)(random_next(&seed) % 40),
			.vars = 1 + (unsigned)(random_next(&seed) % 4),
			.values = 1 + (unsigned)(random_next(&seed) % 6),
			.write_pct = 30 + (unsigned)(random_next(&seed) % 40),
			.rmw_pct = i % 3 == 0 ? 40 : 0,
			.init_pct = i % 2 ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		VSC_OPTS(vsc_check_opts, opts);
		struct analysis a;
		struct engine g;
		struct budget b;

		assert_non_null(p);
		budget_init(&b, &opts);
		assert_int_equal(program_unpack(p), 0);
		assert_int_equal(analysis_build(&a, p), 0);
		assert_int_equal(engine_init(&g, p, &a, NULL, &b), 0);
		for (int j = 0; j < 200; j++) {
			uint32_t key[64], fields = g.k + 1 + g.nkey_vars, f;
			int unbounded = random_below(&seed, 2);

			assert_true(g.key_words <= 64);
			for (uint32_t t = 0; t < g.k; t++)
				g.pos[t] = random_below(&seed, p->threads[t].length + 1);
			g.last = random_below(&seed, g.k + 1);
			if (g.last == g.k)
				g.last = ENGINE_NOBODY;
			for (uint32_t v = 0; v < g.nkey_vars; v++)
				g.mem[g.key_vars[v]] = random_value(&seed, &g, v);
			engine_state_key(&g, unbounded);
			memcpy(key, g.key, g.key_words * sizeof(uint32_t));
			f = random_below(&seed, fields);
			if (f < g.k) {
				uint32_t old = g.pos[f];
				if (p->threads[f].length == 0)
					continue;
				while (g.pos[f] == old)
					g.pos[f] = random_below(&seed, p->threads[f].length + 1);
			} else if (f == g.k) {
				/* the running thread: a thread that is not done, or none */
				uint32_t t = random_below(&seed, g.k), old = g.last;
				if (unbounded)
					continue;
				g.pos[t] = 0;
				if (p->threads[t].length == 0 || t == old)
					continue;
				if (old != ENGINE_NOBODY && g.pos[old] == p->threads[old].length)
					continue;
				engine_state_key(&g, unbounded);
				memcpy(key, g.key, g.key_words * sizeof(uint32_t));
				g.last = t;
			} else {
				uint32_t x = g.key_vars[f - g.k - 1], old = g.mem[x];
				for (int tries = 0; tries < 32 && g.mem[x] == old; tries++)
					g.mem[x] = random_value(&seed, &g, f - g.k - 1);
				if (g.mem[x] == old)
					continue;
			}
			engine_state_key(&g, unbounded);
			if (memcmp(key, g.key, g.key_words * sizeof(uint32_t)) == 0) {
				vsc_program_write(p, stderr);
				fail_msg("two states (field %u changed) share a packed key", f);
			}
			compared++;
		}
		engine_free(&g);
		analysis_free(&a);
		vsc_program_free(p);
	}
	print_message("engine: %d pairs of states, every key apart\n", compared);
	assert_true(compared > programs * 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auto_agrees_on_one_writer),
		cmocka_unit_test(auto_agrees_on_many_writers),
		cmocka_unit_test(auto_agrees_on_long_threads),
		cmocka_unit_test(auto_agrees_on_few_values),
		cmocka_unit_test(sat_agrees_with_exact),
		cmocka_unit_test(unique_run_agrees_with_exact),
		cmocka_unit_test(engine_small_tables_agree),
		cmocka_unit_test(engine_keys_one_to_one),
		cmocka_unit_test(state_table_limited_when_filled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
