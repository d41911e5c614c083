/* SPDX-License-Identifier: MIT */
/* The narrowing of sources (source_narrow.c) and the proof's closure
 * (core_proof.c) on programs too long to enumerate: each is written down
 * from an SC run made here, which records the write each read saw. That
 * run is one SC interleaving of the program, so
 *  - the narrowing keeps every source it gave a read (the lemma of
 *    docs/explain.md, "Proof or not", on one interleaving of hundreds to
 *    thousands of events, 2-12 threads, some of one or two events);
 *  - the closure of any set of its events is consistent (the run cut down
 *    to it), so core_proof never calls one inconsistent: a proof is
 *    claimed only where the set is its own closure, as cores are checked
 *    inconsistent before (the shortcut for values that identify writes).
 * The variables are counters (values that identify writes: their reads
 * force orders, which is what the narrowing uses) and flags of one to
 * three values written by several threads (reads with several candidates,
 * the same value written twice by a thread), with RMWs (some writing back
 * the value they read), `init x v`, `init x ?` and no initial value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "explain.h" /* core_proof: the closure is internal */
#include "random_program.h"
#include "source_narrow.h"
#include "testutil.h"
#include "vsc/vsc.h"

#define MAX_THREADS 12
#define MAX_VARS 6
#define SAW_INIT UINT32_MAX /* the read saw the initial value */

/* The program and, per event, the source its run gave it. */
struct run {
	struct vsc_program *p;
	struct vsc_event_ref *source; /* per flat event; .thread SAW_INIT */
	uint32_t first[MAX_THREADS + 1];
	uint32_t vars;
};

struct memory {
	int64_t value[MAX_VARS];
	int has[MAX_VARS];                 /* the variable holds a value */
	struct vsc_event_ref by[MAX_VARS]; /* its last write (.thread SAW_INIT) */
	unsigned values[MAX_VARS];         /* 0: a counter, else a flag of 1..3 */
	int64_t next_count;
};

/* Each variable a counter or a flag, with an initial value or not. */
static void set_up_vars(uint64_t *seed, struct run *r, struct memory *m)
{
	for (uint32_t v = 0; v < r->vars; v++) {
		unsigned init = random_below(seed, 3);
		m->values[v] = random_below(seed, 2) ? 0 : 1 + random_below(seed, 3);
		m->has[v] = init != 0;
		m->by[v] = (struct vsc_event_ref){ SAW_INIT, 0 };
		m->value[v] = m->values[v] ? (int64_t)random_below(seed, m->values[v]) : 7;
		if (init == 1)
			vsc_program_set_init(r->p, v, VSC_INIT_KNOWN, m->value[v]);
		else if (init == 2)
			vsc_program_set_init(r->p, v, VSC_INIT_UNKNOWN, 0);
	}
}

static int64_t fresh_value(uint64_t *seed, struct memory *m, uint32_t v)
{
	return m->values[v] ? (int64_t)random_below(seed, m->values[v]) : 1000 + m->next_count++;
}

/* Threads picked unevenly (thread t about t+1 times as often as T0), so
 * that some have one or two events. */
static uint32_t pick_thread(uint64_t *seed, uint32_t threads)
{
	uint32_t total = threads * (threads + 1) / 2, at = random_below(seed, total), t = 0;

	while (at >= t + 1)
		at -= ++t;
	return t;
}

/* One step of the run: thread t reads, writes or does an RMW on v. */
static void step(uint64_t *seed, struct run *r, struct memory *m, uint32_t t, uint32_t v,
		 uint32_t *length)
{
	struct vsc_event e = { .var = v };
	unsigned kind = random_below(seed, 10);
	struct vsc_event_ref here = { t, length[t] };

	if (!m->has[v] || kind < 4) {
		e.kind = VSC_WRITE;
		e.value = fresh_value(seed, m, v);
	} else if (kind < 6) {
		e.kind = VSC_RMW;
		e.value = m->value[v];
		e.new_value = random_below(seed, 4) == 0 ? e.value : fresh_value(seed, m, v);
	} else {
		e.kind = VSC_READ;
		e.value = m->value[v];
	}
	assert_int_equal(vsc_program_append(r->p, t, &e, 0), 0);
	if (e.kind != VSC_WRITE)
		r->source[t * 4096u + here.index] = m->by[v];
	length[t]++;
	if (e.kind != VSC_READ) {
		m->value[v] = e.kind == VSC_RMW ? e.new_value : e.value;
		m->has[v] = 1;
		m->by[v] = here;
	}
}

/* A program written down from an SC run of `events` steps; the sources
 * are kept per thread (4096 a thread at most) until numbered flat. */
static void make_run(uint64_t *seed, struct run *r, uint32_t events)
{
	uint32_t threads = 2 + random_below(seed, MAX_THREADS - 1), length[MAX_THREADS] = { 0 };
	struct vsc_event_ref *by_thread = calloc((size_t)MAX_THREADS * 4096, sizeof(*by_thread));
	struct memory m = { .next_count = 0 };

	assert_non_null(by_thread);
	r->vars = 1 + random_below(seed, MAX_VARS);
	r->p = named_program(threads, r->vars);
	assert_non_null(r->p);
	r->source = by_thread;
	set_up_vars(seed, r, &m);
	for (uint32_t n = 0; n < events; n++) {
		uint32_t t = pick_thread(seed, threads);
		if (length[t] < 4096)
			step(seed, r, &m, t, random_below(seed, r->vars), length);
	}
	r->source = calloc(events ? events : 1, sizeof(*r->source));
	assert_non_null(r->source);
	for (uint32_t t = 0; t < threads; t++) {
		r->first[t + 1] = r->first[t] + length[t];
		memcpy(r->source + r->first[t], by_thread + t * 4096u,
		       length[t] * sizeof(*r->source));
	}
	free(by_thread);
}

static void free_run(struct run *r)
{
	vsc_program_free(r->p);
	free(r->source);
}

static int sources_seen, sources_from_init, narrowed_away;

/* Each source the run gave a read must be kept; for one read in 16, the
 * candidates the narrowing drops (other threads' writes of its value) are
 * counted. */
static void check_read(const struct run *r, struct source_narrow *n, struct vsc_event_ref rd)
{
	struct vsc_event_ref s = r->source[r->first[rd.thread] + rd.index];

	if (s.thread == SAW_INIT) {
		assert_true(vsc_read_may_see(r->p, rd, NULL));
		sources_from_init++;
		return;
	}
	source_narrow_read(n, rd);
	assert_true(vsc_read_may_see(r->p, rd, &s));
	assert_true(source_narrow_keeps(n, s));
	if (sources_seen++ % 16)
		return; /* the drops are counted on a sample: a pass over the trace */
	for (uint32_t u = 0; u < vsc_program_thread_count(r->p); u++)
		for (uint32_t j = 0; u != rd.thread && j < vsc_program_thread_length(r->p, u);
		     j++) {
			struct vsc_event_ref w = { u, j };
			narrowed_away +=
				vsc_read_may_see(r->p, rd, &w) && !source_narrow_keeps(n, w);
		}
}

static void check_sources(const struct run *r, const struct analysis *a,
			  const struct source_rule *rule)
{
	struct source_narrow n;

	assert_int_equal(source_narrow_init(&n, r->p, a, rule), 0);
	for (uint32_t t = 0; t < vsc_program_thread_count(r->p); t++)
		for (uint32_t i = 0; i < vsc_program_thread_length(r->p, t); i++)
			if (vsc_program_events(r->p, t)[i].kind != VSC_WRITE)
				check_read(r, &n, (struct vsc_event_ref){ t, i });
	source_narrow_free(&n);
}

static int closures_consistent, closures_unknown, sets_closed;

/* A random set of about one event in `one_in` (sorted, as cores are):
 * its closure is consistent, so no proof unless nothing was put back. */
static void check_closure(const struct run *r, const struct analysis *a,
			  const struct source_rule *rule, uint64_t *seed, unsigned one_in,
			  double timeout_s)
{
	struct vsc_core core = { 0 };
	VSC_OPTS(vsc_check_opts, opts, .timeout_s = timeout_s);

	core.events = malloc((r->first[vsc_program_thread_count(r->p)] + 1) * sizeof(*core.events));
	assert_non_null(core.events);
	for (uint32_t t = 0; t < vsc_program_thread_count(r->p); t++)
		for (uint32_t i = 0; i < vsc_program_thread_length(r->p, t); i++)
			if (random_below(seed, one_in) == 0)
				core.events[core.count++] = (struct vsc_event_ref){ t, i };
	assert_int_equal(core_proof(r->p, a, rule, &core, &opts), 0);
	if (core.proof == CORE_PROOF_YES) {
		assert_int_equal(core.proof_events, core.count);
		sets_closed++;
	} else {
		closures_consistent += core.proof == CORE_PROOF_NO;
		closures_unknown += core.proof == CORE_PROOF_UNKNOWN;
	}
	free(core.events);
}

static void check_runs(uint64_t seed, int rounds, uint32_t events, unsigned one_in,
		       double timeout_s)
{
	for (int round = 0; round < rounds; round++) {
		struct run r = { 0 };
		struct analysis a;
		struct source_rule rule;
		make_run(&seed, &r, events / 2 + random_below(&seed, events));
		assert_int_equal(analysis_build(&a, r.p), 0);
		assert_int_equal(source_rule_init(&rule, r.p, &a), 0);
		check_sources(&r, &a, &rule);
		check_closure(&r, &a, &rule, &seed, one_in, timeout_s);
		source_rule_free(&rule);
		analysis_free(&a);
		free_run(&r);
	}
}

static void test_long_runs(void **state)
{
	(void)state;
	check_runs(0x5a11, (int)test_share(2000), 60, 4, 10);
	check_runs(0x10f7, (int)test_share(20), 4000, 3, 0.2);
	print_message("%d sources kept (%d initial values), %d candidates narrowed away; "
		      "closures: %d consistent, %d unknown, %d sets their own closure\n",
		      sources_seen, sources_from_init, narrowed_away, closures_consistent,
		      closures_unknown, sets_closed);
	assert_true(narrowed_away > (int)test_share(1000));
	assert_true(closures_consistent > (int)test_share(1800));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
