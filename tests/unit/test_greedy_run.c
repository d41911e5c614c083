/* SPDX-License-Identifier: MIT */
/* The greedy run (userspace/lib/greedy_run.c): on thousands of small random
 * programs (one writer per variable and not, fresh and repeated values,
 * RMWs, `init x v`, `init x ?`, wrong reads), every answer it gives agrees
 * with the exact search for the same bound (and --min), and its witness
 * passes the verifier with the count it claims. Where each variable has
 * one writer and values identify writes, it must complete whenever the
 * program is SC (no bound). Then auto on a longer trace: the run decides it
 * and the witness verifies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "greedy_run.h"
#include "random_program.h"
#include "step_alone.h"
#include "testutil.h"

/* The run alone on p for (bound, minimize): the verdict, or -1 when it
 * answers nothing; its witness checked with the verifier. */
static int run_verdict(const struct vsc_program *p, long bound, int minimize, long *pre)
{
	return step_alone_verdict(greedy_run_solve, GREEDY_RUN_DECIDED, GREEDY_RUN_OPEN, p, bound,
				  minimize, pre);
}

/* Each variable written by one thread, each (variable, value) written at
 * most once and never its known initial value, no `init x ?`: the orders
 * of the run are then exactly the SC orders. */
static int values_identify_writes(const struct vsc_program *p)
{
	size_t vars = vsc_program_var_count(p), threads = vsc_program_thread_count(p);

	for (size_t x = 0; x < vars; x++) {
		int64_t init = 0;
		int kind = vsc_program_var_init(p, x, &init);
		long writer = -1;
		if (kind == VSC_INIT_UNKNOWN)
			return 0;
		for (size_t t = 0; t < threads; t++) {
			for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
				const struct vsc_event *e = &vsc_program_events(p, t)[i];
				int64_t v = e->kind == VSC_RMW ? e->new_value : e->value;
				if (e->var != x || e->kind == VSC_READ)
					continue;
				if ((writer >= 0 && writer != (long)t) ||
				    (kind == VSC_INIT_KNOWN && v == init))
					return 0;
				writer = (long)t;
				for (size_t u = 0; u < threads; u++)
					for (size_t j = 0; j < vsc_program_thread_length(p, u);
					     j++) {
						const struct vsc_event *f =
							&vsc_program_events(p, u)[j];
						if (f != e && f->var == x && f->kind != VSC_READ &&
						    (f->kind == VSC_RMW ? f->new_value
									: f->value) == v)
							return 0;
					}
			}
		}
	}
	return 1;
}

/* p written as text and parsed again: its events packed (packed.h) when
 * they fit. The program belongs to *trace. */
static const struct vsc_program *reparsed(const struct vsc_program *p, struct vsc_trace **trace)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	VSC_OPTS(vsc_parse_opts, opts);

	assert_non_null(f);
	assert_int_equal(vsc_program_write(p, f), 0);
	fclose(f);
	*trace = vsc_trace_parse_buffer(text, len, &opts);
	free(text);
	assert_non_null(*trace);
	assert_int_equal(vsc_trace_program_count(*trace), 1);
	return vsc_trace_program(*trace, 0);
}

/* The questions of the property tests: no bound, bounds 0-3, --min. */
#define QUESTIONS 6

static long question_bound(unsigned j)
{
	return j < 5 ? (long)j - 1 : -1;
}

/* The run on p parsed again (its events packed unless an RMW or a value
 * does not fit: want says which) answers each question as on p (v[j],
 * pre[j]: its verdicts there), each witness checked by the verifier on
 * the packed events; the packed events are what every run reads (nothing
 * unpacks them before the last question). */
static void packed_answers_same(const struct vsc_program *p, enum packing want, const int *v,
				const long *pre)
{
	struct vsc_trace *trace;
	const struct vsc_program *q;

	if (vsc_program_event_count(p) == 0)
		return; /* no text to parse back into a program */
	q = reparsed(p, &trace);
	for (unsigned j = 0; j < QUESTIONS; j++) {
		long pre_q = -1;
		int w = run_verdict(q, question_bound(j), j == 5, &pre_q);
		assert_int_equal(program_packed(q), want);
		assert_int_equal(w, v[j]);
		if (w >= 0)
			assert_int_equal(pre_q, pre[j]);
	}
	vsc_trace_free(trace);
}

/* What the parser keeps p's events as (none of p's threads is empty). */
static enum packing packing_of(const struct vsc_program *p)
{
	enum packing k = PACKING_NARROW;

	for (size_t t = 0; t < vsc_program_thread_count(p); t++)
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			const struct vsc_event *e = &vsc_program_events(p, t)[i];
			if (k == PACKING_NARROW && !packing_fits(k, e->kind, e->var, e->value))
				k = PACKING_WIDE;
			if (k == PACKING_WIDE && !packing_fits(k, e->kind, e->var, e->value))
				return PACKING_NONE;
		}
	return k;
}

/* Fresh values, one writer, consistent: the run must complete (no bound).
 * Returns 1 when the program is of that kind. */
static int check_complete(const struct vsc_program *p, int answered)
{
	struct vsc_result *want;

	if (!values_identify_writes(p))
		return 0;
	if (answered)
		return 1;
	want = decide(p, "exact", -1, 0);
	if (vsc_result_verdict(want) == VSC_CONSISTENT) {
		vsc_program_write(p, stderr);
		fail_msg("values identify writes, SC, and the run did not complete");
	}
	vsc_result_free(want);
	return 1;
}

static void run_agrees_with_exact(void **state)
{
	uint64_t seed = 0x6a7eed1ULL;
	int answered = 0, asked = 0, identified = 0, programs = (int)test_share(20000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 1 + random_below(&seed, 4),
			.events = 1 + random_below(&seed, 12),
			.vars = 1 + random_below(&seed, 3),
			.values = random_below(&seed, 2) ? 2 + random_below(&seed, 3) : 40,
			.one_writer = random_below(&seed, 4) != 0,
			.write_pct = 30 + random_below(&seed, 40),
			.rmw_pct = random_below(&seed, 2) ? 25 : 0,
			.wrong_pct = random_below(&seed, 3) ? 0 : 10,
			.init_pct = random_below(&seed, 2) ? 50 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		long pre[QUESTIONS];
		int v[QUESTIONS];

		assert_non_null(p);
		for (unsigned j = 0; j < QUESTIONS; j++) {
			long bound = question_bound(j);
			int minimize = j == 5;
			pre[j] = -1;
			v[j] = run_verdict(p, bound, minimize, &pre[j]);
			asked++;
			if (j == 0)
				identified += check_complete(p, v[j] >= 0);
			if (v[j] < 0)
				continue;
			answered++;
			assert_true(!minimize || pre[j] == 0); /* --min: only with none */
			step_alone_agrees(p, bound, minimize, pre[j]);
		}
		packed_answers_same(p, shape.rmw_pct ? packing_of(p) : PACKING_NARROW, v, pre);
		vsc_program_free(p);
	}
	print_message("the greedy run answered %d of %d questions (%d programs whose values "
		      "identify writes)\n",
		      answered, asked, identified);
	assert_true(answered > asked / 10);
	assert_true(identified > programs / 20);
}

/* The values of p through one of these maps, each one to one: the run
 * compares values only, so it must answer as on p, unless the span is too
 * wide for its table (then it leaves the program alone). */
enum value_map {
	BEYOND_NARROW, /* too far from 0 for 4-byte packed events, not for 8 */
	NEAR_MIN,
	NEAR_MAX_REVERSED,
	NEGATIVE,
	CROSS_ZERO,
	EXTREMES,
	SPREAD,
	MAPS
};

static int64_t map_value(enum value_map m, int64_t v)
{
	switch (m) {
	case BEYOND_NARROW:
		return v + ((int64_t)1 << 30);
	case NEAR_MIN:
		return INT64_MIN + v;
	case NEAR_MAX_REVERSED:
		return INT64_MAX - v;
	case NEGATIVE:
		return -v - 1;
	case CROSS_ZERO:
		return v - 2;
	case EXTREMES: /* the span is all of int64_t */
		return v == 0 ? INT64_MIN : v == 1 ? INT64_MAX : v - 2;
	default: /* SPREAD: a span of 2^61 and more, never a table that wide */
		return v * ((int64_t)1 << 56);
	}
}

/* p with its values mapped, and an empty thread among the others. */
static struct vsc_program *mapped_copy(const struct vsc_program *p, enum value_map m)
{
	size_t threads = vsc_program_thread_count(p), vars = vsc_program_var_count(p);
	struct vsc_program *q = named_program((unsigned)threads + 1, (unsigned)vars);
	size_t empty = (size_t)m % (threads + 1);

	assert_non_null(q);
	for (size_t x = 0; x < vars; x++) {
		int64_t init = 0;
		int kind = vsc_program_var_init(p, x, &init);
		if (kind != VSC_INIT_NONE)
			vsc_program_set_init(q, x, kind,
					     kind == VSC_INIT_KNOWN ? map_value(m, init) : 0);
	}
	for (size_t t = 0; t < threads; t++)
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct vsc_event e = vsc_program_events(p, t)[i];
			e.value = map_value(m, e.value);
			e.new_value = map_value(m, e.new_value);
			assert_int_equal(vsc_program_append(q, t + (t >= empty), &e, 0), 0);
		}
	return q;
}

/* Values near INT64_MIN and INT64_MAX, negative, across 0, spanning all of
 * int64_t or 2^61, with an empty thread: the same answers as on the
 * small values, each checked against exact and the verifier. */
static void run_same_on_any_values(void **state)
{
	uint64_t seed = 0x5a1e5ULL;
	int answered = 0, programs = (int)test_share(3000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 1 + random_below(&seed, 5),
			.events = 1 + random_below(&seed, 11),
			.vars = 1 + random_below(&seed, 3),
			.values = 2 + random_below(&seed, 6),
			.one_writer = random_below(&seed, 4) != 0,
			.write_pct = 30 + random_below(&seed, 40),
			.rmw_pct = random_below(&seed, 2) ? 25 : 0,
			.wrong_pct = random_below(&seed, 3) ? 0 : 10,
			.init_pct = random_below(&seed, 2) ? 60 : 0,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		for (enum value_map m = 0; m < MAPS; m++) {
			struct vsc_program *q = mapped_copy(p, m);
			long pre_q[QUESTIONS];
			int w[QUESTIONS];
			for (unsigned j = 0; j < QUESTIONS; j++) {
				long bound = question_bound(j), pre = -1;
				int minimize = j == 5, v = run_verdict(p, bound, minimize, &pre);
				pre_q[j] = -1;
				w[j] = run_verdict(q, bound, minimize, &pre_q[j]);
				if (w[j] >= 0) {
					answered++;
					step_alone_agrees(q, bound, minimize, pre_q[j]);
				}
				if (m == EXTREMES || m == SPREAD)
					continue; /* no table: may leave q alone */
				if (v != w[j])
					vsc_program_write(q, stderr);
				assert_int_equal(v, w[j]);
			}
			packed_answers_same(q, packing_of(q), w, pre_q);
			vsc_program_free(q);
		}
		vsc_program_free(p);
	}
	assert_true(answered > programs);
}

/* More than GREEDY_RUN_THREADS threads, a read of a value never written:
 * the run leaves them alone, auto decides them. */
static void run_leaves_what_it_cannot_take(void **state)
{
	struct vsc_program *p = named_program(GREEDY_RUN_THREADS + 1, 2);
	struct vsc_result *res;
	const uint32_t *w;
	long pre = -1;
	size_t n;

	(void)state;
	assert_non_null(p);
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	for (unsigned t = 0; t <= GREEDY_RUN_THREADS; t++) {
		struct vsc_event wr = { .kind = VSC_WRITE, .var = 0, .value = t + 1 };
		struct vsc_event rd = { .kind = VSC_READ, .var = 0, .value = t + 1 };
		assert_int_equal(vsc_program_append(p, t, &wr, 0), 0);
		assert_int_equal(vsc_program_append(p, t, &rd, 0), 0);
	}
	assert_int_equal(run_verdict(p, -1, 0, &pre), -1);
	res = decide(p, "auto", 0, 0);
	n = vsc_result_witness(res, &w);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	assert_int_equal(vsc_witness_verify(p, w, n, &pre, NULL, 0), 0);
	assert_int_equal(pre, 0);
	vsc_result_free(res);
	{
		struct vsc_event never = { .kind = VSC_READ, .var = 1, .value = INT64_MIN };
		assert_int_equal(vsc_program_append(p, 0, &never, 0), 0);
	}
	res = decide(p, "auto", -1, 0);
	assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
	vsc_result_free(res);
	vsc_program_free(p);
}

/* A 1-Writer trace of 8 threads in slices (the generator's shape): auto
 * decides it by the run; the witness verifies within the bound. */
static void auto_decides_slices(void **state)
{
	struct vsc_program *p = named_program(8, 16);
	int64_t next[16] = { 0 };
	uint64_t seed = 0x511ce5ULL;
	unsigned order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	assert_non_null(p);
	for (unsigned x = 0; x < 16; x++)
		vsc_program_set_init(p, x, VSC_INIT_KNOWN, 0);
	/* each thread runs whole, but T0 stops halfway for everybody else */
	for (unsigned s = 0; s < 9; s++) {
		unsigned t = s == 0 || s == 8 ? 0 : order[s];
		for (unsigned e = 0; e < 3000; e++) {
			struct vsc_event ev = { .var = random_below(&seed, 16) };
			if (ev.var % 8 == t) {
				ev.kind = VSC_WRITE;
				ev.value = ++next[ev.var];
			} else {
				ev.kind = VSC_READ;
				ev.value = next[ev.var];
			}
			assert_int_equal(vsc_program_append(p, t, &ev, 0), 0);
		}
	}
	for (long bound = 0; bound <= 2; bound++) {
		struct vsc_result *res = decide(p, "auto", bound, 0);
		const uint32_t *w;
		size_t n = vsc_result_witness(res, &w);
		long pre = -1;
		assert_int_equal(vsc_result_verdict(res),
				 bound ? VSC_CONSISTENT : VSC_INCONSISTENT);
		if (bound) {
			assert_int_equal(vsc_witness_verify(p, w, n, &pre, NULL, 0), 0);
			assert_true(pre <= bound);
			assert_int_equal(run_verdict(p, bound, 0, &pre), VSC_CONSISTENT);
		}
		vsc_result_free(res);
	}
	vsc_program_free(p);
}

/* A 1-Writer trace in slices whose writes count up by `step`: each
 * thread writes its own variable, reads the others'. */
static struct vsc_program *slices_counting_by(int64_t step, unsigned events_per_slice)
{
	struct vsc_program *p = named_program(8, 8);
	int64_t last[8] = { 0 };
	uint64_t seed = 0xb16ULL;

	for (unsigned x = 0; x < 8; x++)
		vsc_program_set_init(p, x, VSC_INIT_KNOWN, 0);
	for (unsigned s = 0; s < 16; s++) {
		unsigned t = s % 8;
		for (unsigned e = 0; e < events_per_slice; e++) {
			struct vsc_event ev = { .var = random_below(&seed, 8) };
			ev.kind = ev.var == t ? VSC_WRITE : VSC_READ;
			ev.value = ev.var == t ? (last[t] += step) : last[ev.var];
			assert_int_equal(vsc_program_append(p, t, &ev, 0), 0);
		}
	}
	return p;
}

/* The count table from 2 MiB on is a mapping of its own (huge pages):
 * values 28 apart make it ~2.8 MB on 200,000 events; the run gives the
 * same answer and the same witness as on the values 1 apart (a table of
 * 0.4 MB on the heap), and the witness verifies. */
static void run_with_a_mapped_table(void **state)
{
	struct vsc_program *wide = slices_counting_by(28, 12500),
			   *dense = slices_counting_by(1, 12500);
	struct vsc_result *a = decide(wide, "auto", 15, 0), *b = decide(dense, "auto", 15, 0);
	const uint32_t *wa, *wb;
	size_t na = vsc_result_witness(a, &wa), nb = vsc_result_witness(b, &wb);
	long pre = -1;

	(void)state;
	assert_int_equal(vsc_program_event_count(wide), 200000);
	assert_int_equal(vsc_result_verdict(a), VSC_CONSISTENT);
	assert_int_equal(vsc_result_verdict(b), VSC_CONSISTENT);
	assert_int_equal(na, 200000);
	assert_int_equal(nb, na);
	assert_memory_equal(wa, wb, na * sizeof(*wa));
	assert_int_equal(vsc_witness_verify(wide, wa, na, &pre, NULL, 0), 0);
	assert_true(pre <= 15);
	assert_int_equal(run_verdict(wide, 15, 0, &pre), VSC_CONSISTENT);
	vsc_result_free(a);
	vsc_result_free(b);
	vsc_program_free(wide);
	vsc_program_free(dense);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_agrees_with_exact),
		cmocka_unit_test(run_same_on_any_values),
		cmocka_unit_test(run_leaves_what_it_cannot_take),
		cmocka_unit_test(auto_decides_slices),
		cmocka_unit_test(run_with_a_mapped_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
