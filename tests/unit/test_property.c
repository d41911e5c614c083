/* SPDX-License-Identifier: MIT */
/* Property test: thousands of small random programs, every solver of
 * vsc_solver_names() against the brute-force enumerator of brute.c: verdict,
 * least preemptions, the answer for every bound, and every witness (checked
 * by vsc_witness_verify and by the enumerator's own replay).
 *
 * VSC_PROPERTY_SEED (default 20261202), VSC_PROPERTY_COUNT (default 5000, or
 * VSC_TEST_PERCENT percent of it: testutil.h) and
 * VSC_PROPERTY_MAX_EVENTS (default 14, at most 40) change the run; program i
 * is generated from seed + i, and a mismatch prints that seed and the program
 * in the text format. Programs the enumerator cannot finish are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brute.h"
#include "testutil.h"

#define MAX_EVENTS 14     /* total per program: keeps the enumerator fast */
#define MAX_EVENTS_CAP 40 /* VSC_PROPERTY_MAX_EVENTS may raise it to this */
#define BRUTE_NODES 20000000ULL
#define MAX_REPORTS 5
#define UNBOUNDED_EVENTS 10 /* see check_solver() */
#define FAR_ABOVE 6         /* a bound this far above the least is asked too */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(rng_next(r) % n);
}

struct gen_event {
	unsigned thread;
	struct vsc_event ev;
};

/* A random program. Half of them come from a random SC run (so they are
 * consistent, with some number of preemptions), some of those with one read
 * changed afterwards; the rest are events drawn at random. */
static unsigned max_events = MAX_EVENTS;

static struct vsc_program *generate(uint64_t seed)
{
	static const char *const thread_names[] = { "T0", "t:1", "T.2", "tid-3", "T_4" };
	static const char *const var_names[] = { "x", "y", "0x7f00" };
	struct rng r = { seed * 0x9e3779b97f4a7c15ULL + 1 };
	unsigned k = 2 + below(&r, 4), nvars = 1 + below(&r, 3), nvalues = 2 + below(&r, 2);
	unsigned length[5], total = 0, mode = below(&r, 4);
	int init_kind[3];
	int64_t init_value[3], hidden[3];
	struct gen_event events[MAX_EVENTS_CAP + 16];
	struct vsc_program *p = vsc_program_new();

	if (!p)
		return NULL;
	/* Some programs built through the API have a thread without events
	 * (the parser never makes one) or a variable nobody uses. */
	int empty_thread = below(&r, 8) == 0 ? (int)below(&r, k + 1) : -1;
	for (unsigned t = 0; t < k; t++) {
		length[t] = 1 + below(&r, max_events > 14 ? 10 : 8);
		total += length[t];
		if ((int)t == empty_thread)
			vsc_program_add_thread(p, "idle");
		vsc_program_add_thread(p, thread_names[t]);
	}
	if (empty_thread == (int)k)
		vsc_program_add_thread(p, "idle");
	if (below(&r, 8) == 0)
		vsc_program_add_var(p, "unused");
	while (total > max_events) {
		unsigned t = below(&r, k);
		if (length[t] > 1) {
			length[t]--;
			total--;
		}
	}
	int no_init = below(&r, 3) == 0;
	/* a third of the programs are 1-Writer (each variable has one writing
	 * thread), the class the paper's algorithm decides */
	int one_writer = below(&r, 3) == 0;
	unsigned owner[3];
	for (unsigned v = 0; v < nvars; v++) {
		vsc_program_add_var(p, var_names[v]);
		init_kind[v] = no_init ? VSC_INIT_NONE : (int)below(&r, 3);
		init_value[v] = below(&r, nvalues);
		hidden[v] = below(&r, nvalues) + (below(&r, 4) == 0 ? 100 : 0);
		vsc_program_set_init(p, v, init_kind[v], init_value[v]);
		owner[v] = below(&r, k);
	}

	/* The events in the order of a random interleaving. */
	unsigned left[5], n = 0;
	int has[3];
	int64_t mem[3];
	memcpy(left, length, sizeof(left));
	for (unsigned v = 0; v < nvars; v++) {
		has[v] = init_kind[v] != VSC_INIT_NONE;
		mem[v] = init_kind[v] == VSC_INIT_KNOWN ? init_value[v] : hidden[v];
	}
	while (n < total) {
		unsigned t = below(&r, k);
		if (!left[t])
			continue;
		/* runs of one thread, so that few preemptions are common */
		unsigned run = 1 + below(&r, 3);
		for (; run && left[t]; run--, left[t]--) {
			struct vsc_event e = { .var = below(&r, nvars) };
			unsigned kind = below(&r, 20);
			e.kind = kind < 9 ? VSC_READ : kind < 17 ? VSC_WRITE : VSC_RMW;
			e.value = below(&r, nvalues);
			e.new_value = below(&r, nvalues);
			if (one_writer && t != owner[e.var])
				e.kind = VSC_READ;
			if (mode < 2 && e.kind != VSC_WRITE) {
				if (has[e.var])
					e.value = mem[e.var];
				else if (!one_writer || t == owner[e.var])
					e.kind = VSC_WRITE;
			}
			if (e.kind != VSC_READ) {
				has[e.var] = 1;
				mem[e.var] = e.kind == VSC_RMW ? e.new_value : e.value;
			}
			events[n].thread = t;
			events[n++].ev = e;
		}
	}
	if (mode == 1) { /* change one value read */
		unsigned i = below(&r, total);
		if (events[i].ev.kind != VSC_WRITE)
			events[i].ev.value = below(&r, nvalues);
	}
	/* A quarter of the programs use values at the ends of int64_t. */
	static const int64_t extremes[] = { INT64_MIN,     INT64_MAX, -1,  0,
					    INT64_MIN + 1, 100,       101, 102 };
	int extreme = below(&r, 4) == 0;
	for (unsigned i = 0; i < total; i++) {
		struct vsc_event *e = &events[i].ev;
		unsigned t = events[i].thread;
		if (extreme) {
			e->value = extremes[e->value % 8];
			e->new_value = extremes[e->new_value % 8];
		}
		/* thread indices shift past the empty thread */
		if (empty_thread >= 0 && (int)t >= empty_thread)
			events[i].thread = t + 1;
	}
	for (unsigned v = 0; extreme && v < nvars; v++)
		if (init_kind[v] == VSC_INIT_KNOWN)
			vsc_program_set_init(p, v, VSC_INIT_KNOWN, extremes[init_value[v] % 8]);
	for (unsigned i = 0; i < total; i++)
		if (vsc_program_append(p, events[i].thread, &events[i].ev, 0)) {
			vsc_program_free(p);
			return NULL;
		}
	return p;
}

struct stats {
	unsigned long programs, consistent, skipped_big, checks, failures;
	unsigned long least_hist[8];
	unsigned long not_applicable[8];
};

static uint64_t current_seed;

static void report_failure(struct stats *st, const struct vsc_program *p, const char *solver,
			   const char *fmt, ...)
{
	va_list ap;
	char why[512];

	st->failures++;
	if (st->failures > MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "MISMATCH (seed %llu, solver %s): %s\n", (unsigned long long)current_seed,
		solver, why);
	dump_program("reproduce with this file", p);
}

/* The witness of res must be a valid SC interleaving with the preemptions
 * the result reports; returns its preemptions or -1. */
static long check_witness(struct stats *st, const struct vsc_program *p, const char *solver,
			  const struct vsc_result *res, const char *what)
{
	const uint32_t *w = NULL;
	size_t n = vsc_result_witness(res, &w);
	long pre_lib = -1, pre_brute = -1;
	char why[256] = "";

	if (n != vsc_program_event_count(p) || (n && !w)) {
		report_failure(st, p, solver, "%s: witness has %zu steps for %zu events", what, n,
			       vsc_program_event_count(p));
		return -1;
	}
	if (vsc_witness_verify(p, w, n, &pre_lib, why, sizeof(why))) {
		report_failure(st, p, solver, "%s: vsc_witness_verify rejects the witness: %s",
			       what, why);
		return -1;
	}
	if (brute_replay(p, w, n, &pre_brute, why, sizeof(why))) {
		report_failure(st, p, solver, "%s: the replay rejects the witness: %s", what, why);
		return -1;
	}
	if (pre_lib != pre_brute || vsc_result_preemptions(res) != pre_brute) {
		report_failure(st, p, solver,
			       "%s: preemptions: result says %ld, verifier %ld, replay %ld", what,
			       vsc_result_preemptions(res), pre_lib, pre_brute);
		return -1;
	}
	return pre_brute;
}

/* Run one query. Returns 1 when the solver does not apply to the program,
 * 0 otherwise (with *res set, or NULL after a reported failure). */
static int run(struct stats *st, const struct vsc_program *p, const char *solver,
	       const struct vsc_check_opts *opts, struct vsc_result **res)
{
	int err = vsc_check(p, opts, res);

	st->checks++;
	if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP) {
		*res = NULL;
		if (strcmp(solver, "auto") != 0 && strcmp(solver, "exact") != 0)
			return 1;
	}
	if (err) {
		report_failure(st, p, solver, "vsc_check failed: %s", strerror(-err));
		*res = NULL;
		return 0;
	}
	if (vsc_result_verdict(*res) == VSC_UNKNOWN) {
		report_failure(st, p, solver, "verdict unknown without any limit");
		vsc_result_free(*res);
		*res = NULL;
	}
	return 0;
}

static void check_solver(struct stats *st, const struct vsc_program *p, const char *solver,
			 size_t solver_index, const struct brute_answer *want)
{
	struct vsc_result *res;
	char what[64];

	/* Solvers other than the reference ones may be exponential without a
	 * bound (the paper's algorithm enumerates sets of preemption points):
	 * ask them unbounded questions only on the smaller programs. */
	int reference = strcmp(solver, "auto") == 0 || strcmp(solver, "exact") == 0;
	int unbounded = reference || vsc_program_event_count(p) <= UNBOUNDED_EVENTS;

	/* 0. does it apply at all? (-p 0) */
	VSC_OPTS(vsc_check_opts, probe, .solver = solver, .bounded = true);
	if (run(st, p, solver, &probe, &res)) {
		if (solver_index < 8)
			st->not_applicable[solver_index]++;
		return;
	}
	vsc_result_free(res);
	if (!unbounded)
		goto bounds;
	/* 1. plain: the verdict */
	VSC_OPTS(vsc_check_opts, plain, .solver = solver);
	if (run(st, p, solver, &plain, &res)) {
		if (solver_index < 8)
			st->not_applicable[solver_index]++;
		return;
	}
	if (res) {
		if ((vsc_result_verdict(res) == VSC_CONSISTENT) != want->consistent)
			report_failure(st, p, solver, "verdict %d, brute force says %s",
				       vsc_result_verdict(res),
				       want->consistent ? "consistent" : "inconsistent");
		vsc_result_free(res);
	}
	/* 2. a witness */
	VSC_OPTS(vsc_check_opts, wit, .solver = solver, .want_witness = true);
	if (!run(st, p, solver, &wit, &res) && res) {
		if ((vsc_result_verdict(res) == VSC_CONSISTENT) != want->consistent)
			report_failure(st, p, solver, "--witness: wrong verdict");
		else if (want->consistent) {
			long pre = check_witness(st, p, solver, res, "--witness");
			if (pre >= 0 && pre < want->least)
				report_failure(st, p, solver, "witness with %ld < least %ld", pre,
					       want->least);
		} else if (vsc_result_witness(res, NULL) || vsc_result_preemptions(res) != -1)
			report_failure(st, p, solver, "witness or preemptions when inconsistent");
		vsc_result_free(res);
	}
	/* 3. the least number of preemptions */
	VSC_OPTS(vsc_check_opts, min, .solver = solver, .minimize = true);
	if (!run(st, p, solver, &min, &res) && res) {
		if ((vsc_result_verdict(res) == VSC_CONSISTENT) != want->consistent)
			report_failure(st, p, solver, "--min: wrong verdict");
		else if (want->consistent) {
			if (vsc_result_preemptions(res) != want->least)
				report_failure(st, p, solver,
					       "--min: %ld preemptions, least is %ld",
					       vsc_result_preemptions(res), want->least);
			else
				check_witness(st, p, solver, res, "--min");
		} else if (vsc_result_preemptions(res) != -1 || vsc_result_witness(res, NULL))
			report_failure(st, p, solver,
				       "--min: preemptions or witness when inconsistent");
		vsc_result_free(res);
	}
bounds:
	/* 4. every bound from 0 to one past the least, and for auto one far
	 * above it (where its rounds take the search without a bound too; the
	 * paper's solver enumerates the sets of preemption points there) */
	long top = want->least >= 0 ? want->least + 1 : 3;
	long far = strcmp(solver, "auto") ? top : top + FAR_ABOVE;
	for (long pi = 0; pi <= far; pi = pi == top ? far + (far == top) : pi + 1) {
		int expect = want->consistent && want->least <= pi;
		for (int mode = 0; mode < 3; mode++) {
			VSC_OPTS(vsc_check_opts, b, .solver = solver, .bounded = true,
				 .preemptions = (unsigned long)pi, .want_witness = mode == 1,
				 .minimize = mode == 2);
			snprintf(what, sizeof(what), "-p %ld%s", pi,
				 mode == 1   ? " --witness"
				 : mode == 2 ? " --min"
					     : "");
			if (run(st, p, solver, &b, &res) || !res)
				continue;
			if ((vsc_result_verdict(res) == VSC_CONSISTENT) != expect) {
				report_failure(st, p, solver, "%s: %s, least is %ld", what,
					       vsc_result_verdict(res) == VSC_CONSISTENT
						       ? "consistent"
						       : "inconsistent",
					       want->least);
			} else if (expect && mode) {
				long pre = check_witness(st, p, solver, res, what);
				if (pre > pi || (mode == 2 && pre != want->least))
					report_failure(st, p, solver, "%s: witness has %ld", what,
						       pre);
			} else if (!expect && vsc_result_witness(res, NULL)) {
				report_failure(st, p, solver, "%s: a witness when inconsistent",
					       what);
			}
			vsc_result_free(res);
		}
	}
}

/* The text writer and the parser agree: the program read back is the same. */
static struct vsc_trace *round_trip(struct stats *st, const struct vsc_program *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct vsc_trace *trace;

	if (!f || vsc_program_write(p, f)) {
		report_failure(st, p, "-", "vsc_program_write failed");
		return NULL;
	}
	fclose(f);
	trace = parse_bytes(text, len, NULL);
	free(text);
	const struct vsc_program *q = only_program(trace);
	int same = q && vsc_program_thread_count(q) == vsc_program_thread_count(p) &&
		   vsc_program_event_count(q) == vsc_program_event_count(p);
	for (size_t t = 0; same && t < vsc_program_thread_count(p); t++) {
		same = strcmp(vsc_program_thread_name(p, t), vsc_program_thread_name(q, t)) == 0 &&
		       vsc_program_thread_length(p, t) == vsc_program_thread_length(q, t);
		for (size_t i = 0; same && i < vsc_program_thread_length(p, t); i++) {
			const struct vsc_event *a = &vsc_program_events(p, t)[i];
			const struct vsc_event *b = &vsc_program_events(q, t)[i];
			same = a->kind == b->kind && a->value == b->value &&
			       (a->kind != VSC_RMW || a->new_value == b->new_value) &&
			       strcmp(vsc_program_var_name(p, a->var),
				      vsc_program_var_name(q, b->var)) == 0;
		}
	}
	for (size_t v = 0; same && v < vsc_program_var_count(q); v++) {
		int64_t x = 0, y = 0;
		size_t pv = 0;
		while (pv < vsc_program_var_count(p) &&
		       strcmp(vsc_program_var_name(p, pv), vsc_program_var_name(q, v)) != 0)
			pv++;
		int kp = vsc_program_var_init(p, pv, &x), kq = vsc_program_var_init(q, v, &y);
		same = kp == kq && (kp != VSC_INIT_KNOWN || x == y);
	}
	if (!same) {
		report_failure(st, p, "-", "the program read back from its text differs");
		vsc_trace_free(trace);
		return NULL;
	}
	return trace;
}

static void test_random_programs(void **state)
{
	(void)state;
	unsigned long seed = test_env_number("VSC_PROPERTY_SEED", 20261202);
	unsigned long count = test_env_number("VSC_PROPERTY_COUNT", test_share(5000));
	max_events = (unsigned)test_env_number("VSC_PROPERTY_MAX_EVENTS", MAX_EVENTS);
	if (max_events < 2 || max_events > MAX_EVENTS_CAP)
		max_events = MAX_EVENTS;
	const char *const *names = vsc_solver_names();
	struct stats st = { 0 };
	size_t nsolvers = 0;

	while (names[nsolvers])
		nsolvers++;
	printf("property: seed %lu, %lu programs, solvers:", seed, count);
	for (size_t s = 0; s < nsolvers; s++)
		printf(" %s", names[s]);
	printf("\n");
	for (unsigned long i = 0; i < count && st.failures < 50; i++) {
		struct brute_answer want;
		struct vsc_program *p;
		struct vsc_trace *trace = NULL;
		const struct vsc_program *subject;

		current_seed = seed + i;
		p = generate(current_seed);
		assert_non_null(p);
		if (brute_solve(p, BRUTE_NODES, &want)) {
			st.skipped_big++;
			vsc_program_free(p);
			continue;
		}
		st.programs++;
		st.consistent += want.consistent;
		if (want.consistent)
			st.least_hist[want.least < 7 ? want.least : 7]++;
		/* every other program is checked as read back from its text */
		subject = p;
		/* (the text format cannot hold a thread without events) */
		int has_empty_thread = 0;
		for (size_t t = 0; t < vsc_program_thread_count(p); t++)
			has_empty_thread |= vsc_program_thread_length(p, t) == 0;
		if (i % 2 && !has_empty_thread) {
			trace = round_trip(&st, p);
			if (trace)
				subject = only_program(trace);
		}
		for (size_t s = 0; s < nsolvers; s++)
			check_solver(&st, subject, names[s], s, &want);
		vsc_trace_free(trace);
		vsc_program_free(p);
	}
	printf("property: %lu programs (%lu consistent), %lu skipped as too big, %lu queries, "
	       "%lu mismatches\n",
	       st.programs, st.consistent, st.skipped_big, st.checks, st.failures);
	printf("property: least preemptions 0..6,7+:");
	for (int i = 0; i < 8; i++)
		printf(" %lu", st.least_hist[i]);
	printf("\n");
	for (size_t s = 0; s < nsolvers && s < 8; s++)
		if (st.not_applicable[s])
			printf("property: solver %s did not apply to %lu programs\n", names[s],
			       st.not_applicable[s]);
	assert_int_equal(st.failures, 0);
	if (max_events == MAX_EVENTS)
		assert_true(st.programs >= count * 9 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_programs),
	};
	return cmocka_run_group_tests_name("property", tests, NULL, NULL);
}
