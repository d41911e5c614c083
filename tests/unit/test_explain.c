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

#include "brute.h"
#include "narrow_ref.h"
#include "explain.h" /* localize_refutation: the internal step tested below */
#include "random_program.h"
#include "shrink.h" /* shrink_key_init: whether a program's windows go by times */
#include "solver.h" /* struct vsc_result: whether the verdict kept its analysis */
#include "vsc/vsc.h"
#include "testutil.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct vsc_program *small_program(uint64_t *seed)
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
						   : rng_next(seed) % 2    ? VSC_READ
									   : VSC_WRITE),
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

static bool same_ref(struct vsc_event_ref a, struct vsc_event_ref b)
{
	return a.thread == b.thread && a.index == b.index;
}

/* Each order of the cycle ends where the next begins, and each one that is
 * not program order or a plain reads-from has a justification chain. */
static void check_cycle(const struct vsc_program *p, const struct vsc_core *c)
{
	const struct vsc_order *cycle, *why;
	size_t m = vsc_core_cycle(c, &cycle);

	(void)p;
	for (size_t i = 0; i < m; i++) {
		size_t w = vsc_core_order_why(c, &cycle[i], &why);
		assert_memory_equal(&cycle[i].after, &cycle[(i + 1) % m].before,
				    sizeof(struct vsc_event_ref));
		if (cycle[i].kind == VSC_ORDER_WRITE_FIRST)
			assert_true(w >= 1);
		/* one chain, or several (a read's other writes of its value come
		 * after it: a chain from the read to each), each starting at an
		 * end of the order */
		for (size_t j = 0; j + 1 < w; j++)
			assert_true(same_ref(why[j].after, why[j + 1].before) ||
				    same_ref(why[j + 1].before, cycle[i].before) ||
				    same_ref(why[j + 1].before, cycle[i].after));
	}
}

static const struct vsc_event *event_at(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &vsc_program_events(p, r.thread)[r.index];
}

/* Whether the read ev[i] keeps, among ev[0..n), a source the whole program
 * offers it: its thread's last write of the variable before it in p, if it
 * writes the value (with no such write, an initial value that may be it),
 * or another thread's write of the value. Written apart from
 * core_sources.c. */
static int has_candidate(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n,
			 size_t i)
{
	const struct vsc_event *r = event_at(p, ev[i]);
	long h = ref_own_last_write(p, ev[i]);
	int64_t init_value;
	int init = vsc_program_var_init(p, r->var, &init_value);

	for (size_t j = 0; j < n; j++) {
		const struct vsc_event *w = event_at(p, ev[j]);
		if (w->kind == VSC_READ || w->var != r->var || ref_written_value(w) != r->value)
			continue;
		if (ev[j].thread != ev[i].thread || (long)ev[j].index == h)
			return 1;
	}
	return h < 0 &&
	       (init == VSC_INIT_UNKNOWN || (init == VSC_INIT_KNOWN && init_value == r->value));
}

/* A read with no candidate source in the whole program keeps, among
 * ev[0..n), what shows it: its thread's last write of the variable before
 * it (if any) and some write of its value (if p has one). */
static int shows_no_source(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n,
			   size_t i)
{
	const struct vsc_event *r = event_at(p, ev[i]);
	long h = ref_own_last_write(p, ev[i]);
	int hidden = h < 0, kept = 0, anywhere = 0;

	for (size_t j = 0; j < n; j++) {
		const struct vsc_event *w = event_at(p, ev[j]);
		hidden |= ev[j].thread == ev[i].thread && (long)ev[j].index == h;
		kept |= j != i && w->kind != VSC_READ && w->var == r->var &&
			ref_written_value(w) == r->value;
	}
	for (size_t t = 0; t < vsc_program_thread_count(p); t++)
		for (size_t k = 0; k < vsc_program_thread_length(p, t); k++) {
			const struct vsc_event *w = &vsc_program_events(p, t)[k];
			anywhere |= (t != ev[i].thread || k != ev[i].index) &&
				    w->kind != VSC_READ && w->var == r->var &&
				    ref_written_value(w) == r->value;
		}
	return hidden && (kept || !anywhere);
}

/* Every read of the events keeps a candidate source among them, unless it
 * has none even in the whole program p (then shows_no_source). */
static int keeps_sources(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n)
{
	struct vsc_event_ref all[64];
	size_t m = 0, at = 0;

	for (size_t t = 0; t < vsc_program_thread_count(p); t++)
		for (size_t k = 0; k < vsc_program_thread_length(p, t); k++) {
			assert_true(m < sizeof(all) / sizeof(all[0]));
			all[m++] = (struct vsc_event_ref){ (uint32_t)t, (uint32_t)k };
		}
	for (size_t i = 0; i < n; i++) {
		if (event_at(p, ev[i])->kind == VSC_WRITE || has_candidate(p, ev, n, i))
			continue;
		while (all[at].thread != ev[i].thread || all[at].index != ev[i].index)
			at++;
		if (has_candidate(p, all, m, at) || !shows_no_source(p, ev, n, i))
			return 0;
	}
	return 1;
}

/* The core is a set of the program's events, in program order. */
static void check_subset(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(ev[i].thread < vsc_program_thread_count(p));
		assert_true(ev[i].index < vsc_program_thread_length(p, ev[i].thread));
		assert_true(i == 0 || ev[i - 1].thread < ev[i].thread ||
			    (ev[i - 1].thread == ev[i].thread && ev[i - 1].index < ev[i].index));
	}
}

static int proofs; /* cores that are proofs */

/* The brute-force enumerator of brute.c (shares no code with libvsc's
 * solvers): is there an SC interleaving within the bound? */
static int brute_allows(const struct vsc_program *p, long bound)
{
	struct brute_answer ans;

	assert_int_equal(brute_solve(p, 50000000ULL, &ans), 0);
	return ans.consistent && (bound < 0 || ans.least <= bound);
}

/* ev[0..n) with every source of each read that the narrowed rule keeps
 * (narrow_ref.c, written apart from libvsc), again for the RMWs added:
 * into out (room for 64), sorted. Returns the count. */
static size_t close_sources(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n,
			    struct vsc_event_ref *out)
{
	static struct narrow_ref r;

	assert_int_equal(narrow_ref_init(&r, p), 0);
	return narrow_ref_close(&r, ev, n, out);
}

/* vsc_core_proof: 1 exactly when the core with every source the narrowed
 * rule keeps for its reads is inconsistent (by the enumerator), 0 when
 * consistent. */
static void check_proof(const struct vsc_program *p, const struct vsc_core *c, long bound)
{
	const struct vsc_event_ref *core;
	struct vsc_event_ref closed[64];
	size_t n = vsc_core_events(c, &core), m = close_sources(p, core, n, closed), events;
	struct vsc_program *sub = vsc_program_subset(p, closed, m);
	int proof = vsc_core_proof(c, &events);

	assert_non_null(sub);
	assert_int_equal(events, m);
	assert_int_equal(proof, !brute_allows(sub, bound));
	proofs += proof == 1;
	vsc_program_free(sub);
}

static int with_cycle; /* cores whose reason is a cycle of forced orders */
static int reused;     /* cores explained from the analysis the verdict kept */

/* vsc_explain_result on the verdict of vsc_check (keep_for_explain) gives
 * the core vsc_explain gives, and leaves the result's verdict alone. */
static void same_core_from_result(const struct vsc_program *p, const struct vsc_check_opts *opts,
				  const struct vsc_core *c)
{
	struct vsc_check_opts keep = *opts;
	const struct vsc_event_ref *want, *got;
	struct vsc_result *res;
	struct vsc_core *again;
	size_t n;

	keep.keep_for_explain = true;
	assert_int_equal(vsc_check(p, &keep, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
	reused += res->analysis != NULL && res->analysis_of == p;
	assert_int_equal(vsc_explain_result(p, res, opts, &again), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
	assert_null(res->analysis); /* freed once used */
	n = vsc_core_events(c, &want);
	assert_int_equal(vsc_core_events(again, &got), n);
	assert_memory_equal(want, got, n * sizeof(*got));
	assert_int_equal(vsc_core_cycle(again, NULL), vsc_core_cycle(c, NULL));
	vsc_core_free(again);
	vsc_result_free(res);
}

static int cores;          /* cores checked */
static int proved_by_rule; /* events kept only because C' needed them */

/* Without one event of the core, keeping the source rule: the set is
 * consistent, or (a core shrunk for a proof) its C' is. */
static void check_without(const struct vsc_program *p, const struct vsc_event_ref *ev, size_t n,
			  long bound)
{
	struct vsc_program *sub = vsc_program_subset(p, ev, n);
	struct vsc_event_ref closed[64];
	size_t m;

	assert_non_null(sub);
	if (verdict_of(sub, bound) == VSC_CONSISTENT) {
		vsc_program_free(sub);
		return;
	}
	vsc_program_free(sub);
	m = close_sources(p, ev, n, closed);
	sub = vsc_program_subset(p, closed, m);
	assert_non_null(sub);
	assert_true(brute_allows(sub, bound));
	proved_by_rule++;
	vsc_program_free(sub);
}

/* The core is inconsistent (exact solver), keeps every read's source, and
 * no single event can go keeping both and C' inconsistent. Returns the
 * core's size. */
static size_t check_core(const struct vsc_program *p, long bound)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0);
	const struct vsc_event_ref *core;
	struct vsc_event_ref without[256];
	struct vsc_core *c;
	struct vsc_program *sub;
	size_t n;

	assert_int_equal(vsc_explain(p, &opts, &c), 0);
	assert_true(vsc_core_is_minimal(c));
	n = vsc_core_events(c, &core);
	assert_true(n >= 1 && n <= 256);
	assert_int_equal(vsc_core_context(c, NULL), n);
	check_subset(p, core, n);
	assert_true(keeps_sources(p, core, n));
	sub = vsc_program_subset(p, core, n);
	assert_non_null(sub);
	assert_int_equal(verdict_of(sub, bound), VSC_INCONSISTENT);
	assert_false(brute_allows(sub, bound)); /* and by the separate enumerator */
	vsc_program_free(sub);
	for (size_t drop = 0; drop < n; drop++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (i != drop)
				without[k++] = core[i];
		if (keeps_sources(p, without, k))
			check_without(p, without, k, bound);
	}
	check_cycle(p, c);
	cores++;
	check_proof(p, c, bound);
	same_core_from_result(p, &opts, c);
	with_cycle += vsc_core_cycle(c, NULL) > 0;
	vsc_core_free(c);
	return n;
}

static void test_random_cores(void **state)
{
	uint64_t seed = 20261202;
	int checked = 0;
	int rounds = (int)test_share(1500);

	(void)state;
	for (int round = 0; round < rounds; round++) {
		struct vsc_program *p = small_program(&seed);
		for (long bound = -1; bound <= 1; bound++)
			if (verdict_of(p, bound) == VSC_INCONSISTENT) {
				check_core(p, bound);
				checked++;
			}
		vsc_program_free(p);
	}
	print_message("checked %d cores, %d of them proofs; %d events kept for C'\n", checked,
		      proofs, proved_by_rule);
	assert_true(checked > (int)test_share(100));
	/* a core whose C' was consistent is shrunk again keeping C'
	 * inconsistent: 91 of 4124 random cores were not proofs before */
	assert_int_equal(proofs, cores);
}

/* A program of the property tests' generator: 2-4 threads, 4 to
 * 3 + max_events events, 1-3 variables, 2 to 1 + max_values values; in
 * half of them the last variable is a counter (values identify writes). */
static struct vsc_program *generated_program(uint64_t *seed, unsigned max_events,
					     unsigned max_values, unsigned wrong_pct)
{
	struct random_shape shape = {
		.threads = 2 + (unsigned)(random_next(seed) % 3),
		.events = 4 + (unsigned)(random_next(seed) % max_events),
		.vars = 1 + (unsigned)(random_next(seed) % 3),
		.values = 2 + (unsigned)(random_next(seed) % max_values),
		.one_writer = (int)(random_next(seed) % 2),
		.write_pct = 45,
		.rmw_pct = 15,
		.wrong_pct = wrong_pct,
		.init_pct = 60,
		.unique_last = (int)(random_next(seed) % 2), /* forced orders to narrow by */
	};
	return random_program(seed, &shape);
}

/* Programs built from an SC run with some reads given wrong values (the
 * property tests' generator): one-writer and many-writer, unique and few
 * values, initial values known and unknown. */
static void test_generated_cores(void **state)
{
	uint64_t seed = 0x5eed13;
	int checked = 0;
	size_t largest = 0;
	int rounds = (int)test_share(3000);

	(void)state;
	for (int round = 0; round < rounds; round++) {
		struct vsc_program *p = generated_program(&seed, 12, 6, 12);
		long bound = round % 4 == 3 ? 1 : -1;
		size_t n;
		if (verdict_of(p, bound) == VSC_INCONSISTENT) {
			n = check_core(p, bound);
			largest = n > largest ? n : largest;
			checked++;
		}
		vsc_program_free(p);
	}
	print_message("checked %d generated cores, largest %zu events, %d told as a cycle, "
		      "%d from the verdict's analysis\n",
		      checked, largest, with_cycle, reused);
	assert_true(checked > (int)test_share(500));
	assert_true(reused > (int)test_share(100));
	assert_int_equal(proofs, cores);
}

/* p again with recorded times (@ts): the events of a random interleaving
 * of its threads numbered in turn, so each thread's times increase and the
 * shrinking for a proof cuts windows by times (shrink_key.c). */
static struct vsc_program *with_times(const struct vsc_program *p, uint64_t *seed)
{
	struct vsc_program *q = vsc_program_new();
	uint32_t next[8] = { 0 }, left = (uint32_t)p->event_count;
	uint64_t now = 1000;

	assert_true(program_threads(p) <= 8);
	for (size_t v = 0; v < program_vars(p); v++) {
		int64_t value = 0;
		int init = vsc_program_var_init(p, v, &value);
		assert_int_equal(vsc_program_add_var(q, vsc_program_var_name(p, v)), (int)v);
		assert_int_equal(vsc_program_set_init(q, v, (enum vsc_init)init, value), 0);
	}
	for (uint32_t t = 0; t < program_threads(p); t++)
		assert_int_equal(vsc_program_add_thread(q, p->thread_names.names[t]), (int)t);
	while (left) {
		uint32_t t = (uint32_t)(rng_next(seed) % program_threads(p));
		if (next[t] == p->threads[t].length)
			continue;
		now += 1 + rng_next(seed) % 100;
		assert_int_equal(vsc_program_append(q, t, &p->threads[t].events[next[t]++], now),
				 0);
		left--;
	}
	return q;
}

static int timed; /* cores of programs whose windows are cut by times */

/* The cores of programs with recorded times are proofs and 1-minimal too:
 * the shrinking for a proof then scans windows by times, and a window is
 * taken with its C' gathered straight from the times (shrink_window.c). */
static void test_timed_cores(void **state)
{
	uint64_t seed = 0x7133d;
	int checked = 0, before = cores - proofs;
	int rounds = (int)test_share(6000);

	(void)state;
	for (int round = 0; round < rounds; round++) {
		struct vsc_program *g =
			round % 2 ? generated_program(&seed, 12, 6, 12) : small_program(&seed);
		struct vsc_program *p;
		struct shrink_key k;
		long bound = round % 4 == 3 ? 1 : -1;
		assert_int_equal(program_unpack(g), 0);
		p = with_times(g, &seed);
		vsc_program_free(g);
		shrink_key_init(&k, p, true);
		if (verdict_of(p, bound) == VSC_INCONSISTENT) {
			check_core(p, bound);
			checked++;
			timed += k.kind == KEY_TIME;
		}
		vsc_program_free(p);
	}
	print_message("checked %d cores of programs with times (%d cut by times)\n", checked,
		      timed);
	assert_true(checked > (int)test_share(500));
	assert_true(timed > checked / 4);
	assert_int_equal(cores - proofs, before);
}

/* The localized set is sound: whenever localize_refutation answers, the
 * program and the set on its own are inconsistent (exact solver). */
static void test_localize_sound(void **state)
{
	uint64_t seed = 0x10ca1;
	int found = 0;
	int rounds = (int)test_share(3000);

	(void)state;
	for (int round = 0; round < rounds; round++) {
		struct vsc_program *p = generated_program(&seed, 14, 8, 15);
		struct vsc_event_ref *set;
		struct analysis a;
		size_t n;
		int r;
		assert_int_equal(analysis_build(&a, p), 0);
		r = localize_refutation(p, &a, NULL, &set, &n);
		assert_true(r == 0 || r == 1);
		if (r == 0) {
			struct vsc_program *sub = vsc_program_subset(p, set, n);
			assert_int_equal(verdict_of(p, -1), VSC_INCONSISTENT);
			assert_int_equal(verdict_of(sub, -1), VSC_INCONSISTENT);
			vsc_program_free(sub);
			free(set);
			found++;
		}
		analysis_free(&a);
		vsc_program_free(p);
	}
	print_message("%d refutations localized\n", found);
	assert_true(found > (int)test_share(300));
}

/* The argument behind vsc_core_proof: for any set of events, the set with
 * every source of its reads that the narrowed rule keeps is consistent
 * whenever the program is (each within the bound). Random sets of random
 * programs, consistent and not, by the enumerator. */
static void test_closure_sound(void **state)
{
	uint64_t seed = 0xc105ed;
	int refuting = 0;
	int rounds = (int)test_share(3000);

	(void)state;
	for (int round = 0; round < rounds; round++) {
		struct vsc_program *p = generated_program(&seed, 10, 4, round % 2 ? 10 : 0);
		struct vsc_event_ref set[64], closed[64];
		size_t n = 0, m;
		long bound = round % 3 == 2 ? 1 : -1;
		for (size_t t = 0; t < vsc_program_thread_count(p); t++)
			for (size_t k = 0; k < vsc_program_thread_length(p, t); k++)
				if (random_next(&seed) % 3 == 0)
					set[n++] =
						(struct vsc_event_ref){ (uint32_t)t, (uint32_t)k };
		m = close_sources(p, set, n, closed);
		if (m) {
			struct vsc_program *sub = vsc_program_subset(p, closed, m);
			assert_non_null(sub);
			if (!brute_allows(sub, bound)) {
				assert_false(brute_allows(p, bound));
				refuting++;
			}
			vsc_program_free(sub);
		}
		vsc_program_free(p);
	}
	print_message("%d closed sets refuted their program\n", refuting);
	assert_true(refuting > (int)test_share(100));
}

static void test_consistent_has_no_core(void **state)
{
	static const char text[] = "T1 w x 1\nT2 r x 1\n";
	struct vsc_trace *t = vsc_trace_parse_buffer(text, sizeof(text) - 1, NULL);
	VSC_OPTS(vsc_check_opts, opts);
	struct vsc_core *c = NULL;
	struct vsc_result *res;

	(void)state;
	assert_non_null(t);
	assert_int_equal(vsc_explain(vsc_trace_program(t, 0), &opts, &c), -EINVAL);
	assert_null(c);
	opts.keep_for_explain = true;
	assert_int_equal(vsc_check(vsc_trace_program(t, 0), &opts, &res), 0);
	assert_int_equal(vsc_explain_result(vsc_trace_program(t, 0), res, &opts, &c), -EINVAL);
	assert_null(c);
	vsc_result_free(res);
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

/* A check of the closure that the time limit stops leaves the proof not
 * known; it is no error. core_proof once returned CORE_PROOF_UNKNOWN (-1)
 * as its status, -EPERM, and `--timeout 1.5 --explain` on a 300,000-event
 * trace said `no explanation: Operation not permitted`. The core {T1[1]}:
 * its read of 1 has T2's write of 1 put back (T0's is overwritten by T0's
 * 2, which T1 read before it), so C' must be decided, within 1 ns here. */
static void test_proof_check_under_time_limit(void **state)
{
	static const char text[] = "init x 0\nT0 w x 1\nT0 w x 2\nT1 r x 2\nT1 r x 1\n"
				   "T2 w x 1\nT2 w x 3\nT3 r x 3\nT3 r x 1\n";
	struct vsc_trace *t = vsc_trace_parse_buffer(text, sizeof(text) - 1, NULL);
	const struct vsc_program *p = vsc_trace_program(t, 0);
	struct vsc_event_ref read = { 1, 1 };
	struct vsc_core core = { .events = &read, .count = 1 };
	struct source_rule rule;
	struct analysis a;
	VSC_OPTS(vsc_check_opts, opts, .timeout_s = 1e-9);

	(void)state;
	/* the parser may keep the events packed; the analysis reads the
	 * unpacked ones, as explain() makes sure before it builds one */
	assert_int_equal(program_unpack(p), 0);
	assert_int_equal(analysis_build(&a, p), 0);
	assert_int_equal(source_rule_init(&rule, p, &a), 0);
	assert_int_equal(core_proof(p, &a, &rule, &core, &opts), 0);
	assert_int_equal(core.proof, CORE_PROOF_UNKNOWN);
	assert_int_equal(core.proof_events, 2);
	opts.timeout_s = 10; /* and with time, C' is consistent: not a proof */
	assert_int_equal(core_proof(p, &a, &rule, &core, &opts), 0);
	assert_int_equal(core.proof, CORE_PROOF_NO);
	source_rule_free(&rule);
	analysis_free(&a);
	vsc_trace_free(t);
}

/* Windows by recorded times that lie near the top of 64 bits: a window's
 * end, lo + its width, once wrapped past 2^64 (shrink_window.c), so the
 * windows over the last keys were empty and the scan started again from
 * key 0 until its time ran out. Store buffering at times within 16 of
 * 2^64, after two events at times 1 and 2 (so the keys span nearly all of
 * 64 bits): the scan must find it, its four events, with their C'. */
static void test_windows_near_the_top_of_time(void **state)
{
	static const struct {
		uint32_t thread;
		struct vsc_event e;
		uint64_t ts;
	} events[] = {
		{ 0, { .kind = VSC_WRITE, .var = 2, .value = 1 }, 1 },
		{ 0, { .kind = VSC_WRITE, .var = 0, .value = 1 }, UINT64_MAX - 10 },
		{ 0, { .kind = VSC_READ, .var = 1, .value = 0 }, UINT64_MAX - 8 },
		{ 1, { .kind = VSC_READ, .var = 2, .value = 1 }, 2 },
		{ 1, { .kind = VSC_WRITE, .var = 1, .value = 1 }, UINT64_MAX - 9 },
		{ 1, { .kind = VSC_READ, .var = 0, .value = 0 }, UINT64_MAX - 7 },
	};
	struct vsc_program *p = vsc_program_new();
	struct source_rule rule;
	struct analysis a;
	struct shrink s = { .p = p, .a = &a, .rule = &rule, .whole_s = 0.01 };
	struct shrink_key k;

	(void)state;
	assert_int_equal(vsc_program_add_var(p, "x"), 0);
	assert_int_equal(vsc_program_add_var(p, "y"), 1);
	assert_int_equal(vsc_program_add_var(p, "z"), 2);
	assert_int_equal(vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0), 0);
	assert_int_equal(vsc_program_set_init(p, 1, VSC_INIT_KNOWN, 0), 0);
	assert_int_equal(vsc_program_add_thread(p, "T0"), 0);
	assert_int_equal(vsc_program_add_thread(p, "T1"), 1);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		assert_int_equal(
			vsc_program_append(p, events[i].thread, &events[i].e, events[i].ts), 0);
	assert_int_equal(program_unpack(p), 0);
	shrink_key_init(&k, p, true);
	assert_int_equal(k.kind, KEY_TIME);
	assert_true(k.last > UINT64_MAX - 16);
	s.opts = (struct vsc_check_opts){ .sz = sizeof(s.opts) };
	assert_int_equal(analysis_build(&a, p), 0);
	assert_int_equal(source_rule_init(&rule, p, &a), 0);
	assert_int_equal(proof_closure_new(&s.closure, p, &a, &rule, SIZE_MAX), 0);
	s.n = p->event_count;
	s.all = malloc(s.n * sizeof(*s.all));
	assert_non_null(s.all);
	for (uint32_t i = 0; i < s.n; i++)
		s.all[i] = (struct vsc_event_ref){ i / 3, i % 3 };
	assert_int_equal(shrink_prepare(&s), 0);
	assert_int_equal(shrink_scan(&s), 1);
	assert_int_equal(s.n, 4); /* the kept set, compacted: the four of SB */
	for (size_t i = 0; i < s.n; i++)
		assert_int_not_equal(s.all[i].index, 0);
	proof_closure_free(s.closure);
	shrink_release(&s);
	source_rule_free(&rule);
	analysis_free(&a);
	vsc_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_cores),
		cmocka_unit_test(test_generated_cores),
		cmocka_unit_test(test_timed_cores),
		cmocka_unit_test(test_windows_near_the_top_of_time),
		cmocka_unit_test(test_localize_sound),
		cmocka_unit_test(test_closure_sound),
		cmocka_unit_test(test_consistent_has_no_core),
		cmocka_unit_test(test_store_buffering_cycle),
		cmocka_unit_test(test_proof_check_under_time_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
