/* SPDX-License-Identifier: MIT */
/* Every solver on classic litmus tests and the seed paper's examples, with
 * answers worked out by hand; the options and limits of vsc_check(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

struct litmus {
	const char *name;
	const char *text;
	long least; /* least preemptions, -1: inconsistent for every bound */
};

static const struct litmus litmus[] = {
	{ "empty", "", 0 },
	{ "own write", "T1 w x 1\nT1 r x 1\n", 0 },
	{ "read before own write", "T1 r x 1\nT1 w x 1\n", -1 },
	{ "no initial value", "T1 r x 0\n", -1 },
	{ "initial value", "init x 0\nT1 r x 0\n", 0 },
	{ "initial value overwritten", "init x 0\nT1 w x 1\nT1 r x 0\n", -1 },
	/* store buffering */
	{ "SB forbidden", "init x 0\ninit y 0\nT1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x 0\n", -1 },
	{ "SB one late", "init x 0\ninit y 0\nT1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x 1\n", 0 },
	{ "SB both see", "init x 0\ninit y 0\nT1 w x 1\nT1 r y 1\nT2 w y 1\nT2 r x 1\n", 1 },
	/* message passing */
	{ "MP forbidden", "init x 0\ninit f 0\nT1 w x 1\nT1 w f 1\nT2 r f 1\nT2 r x 0\n", -1 },
	{ "MP ok", "init x 0\ninit f 0\nT1 w x 1\nT1 w f 1\nT2 r f 1\nT2 r x 1\n", 0 },
	{ "MP between", "init x 0\ninit f 0\nT1 w x 1\nT1 w f 1\nT2 r f 0\nT2 r x 1\n", 1 },
	/* load buffering */
	{ "LB forbidden", "init x 0\ninit y 0\nT1 r x 1\nT1 w y 1\nT2 r y 1\nT2 w x 1\n", -1 },
	{ "LB ok", "init x 0\ninit y 0\nT1 r x 0\nT1 w y 1\nT2 r y 1\nT2 w x 1\n", 0 },
	/* independent reads of independent writes */
	{ "IRIW forbidden",
	  "init x 0\ninit y 0\nT1 w x 1\nT2 w y 1\nT3 r x 1\nT3 r y 0\nT4 r y 1\nT4 r x 0\n", -1 },
	{ "IRIW ok",
	  "init x 0\ninit y 0\nT1 w x 1\nT2 w y 1\nT3 r x 1\nT3 r y 1\nT4 r y 1\nT4 r x 1\n", 0 },
	/* coherence */
	{ "CoRR forbidden", "init x 0\nT1 w x 1\nT2 r x 1\nT2 r x 0\n", -1 },
	{ "CoRR two writers", "T1 w x 1\nT2 w x 2\nT3 r x 1\nT3 r x 2\nT4 r x 2\nT4 r x 1\n", -1 },
	{ "CoRR same order", /* T1 w1, T3 r1 | T4 r1 | T2 w2, T3 r2, T4 r2 */
	  "T1 w x 1\nT2 w x 2\nT3 r x 1\nT3 r x 2\nT4 r x 1\nT4 r x 2\n", 2 },
	{ "CoWR", "T1 w x 1\nT1 r x 2\nT2 w x 2\n", 1 },
	{ "CoWR forbidden", "init x 0\nT1 w x 1\nT1 r x 0\n", -1 },
	/* write-to-read causality */
	{ "WRC forbidden", "init x 0\ninit y 0\nT1 w x 1\nT2 r x 1\nT2 w y 1\nT3 r y 1\nT3 r x 0\n",
	  -1 },
	/* read-modify-write is indivisible */
	{ "RMW both 0", "init x 0\nT1 u x 0 1\nT2 u x 0 1\n", -1 },
	{ "RMW chain", "init x 0\nT1 u x 0 1\nT2 u x 1 2\nT2 r x 2\n", 0 },
	{ "RMW split would pass", "init x 0\nT1 u x 0 1\nT2 u x 0 2\nT1 r x 2\n", -1 },
	{ "RMW on unknown", "init x ?\nT1 u x 7 8\nT2 r x 8\n", 0 },
	/* one unknown initial value */
	{ "unknown init agrees", "init x ?\nT1 r x 5\nT2 r x 5\n", 0 },
	{ "unknown init disagrees", "init x ?\nT1 r x 5\nT2 r x 6\n", -1 },
	{ "unknown init same thread", "init x ?\nT1 r x 5\nT1 r x 6\n", -1 },
	{ "unknown init then write", "init x ?\nT1 r x 5\nT2 w x 6\nT2 r x 6\nT1 r x 6\n", 1 },
	{ "unknown init needs switch", "init x ?\nT1 r x 5\nT1 r x 6\nT2 w x 6\nT2 r x 5\n", -1 },
	{ "unknown init late read", "init x ?\nT1 w x 6\nT1 r x 5\nT2 r x 5\n", -1 },
	/* the seed paper, Figure 1 (1-Writer): S3 must read x between S1's two
	 * writes, S1's r(y,1) needs S2's write after S2 read x = 2 */
	{ "paper figure 1", "S1 w x 1\nS1 w x 2\nS1 r y 1\nS2 r x 2\nS2 w y 1\nS3 r x 1\n", 2 },
	/* Figure 3, Prog1, as far as the text tells it */
	{ "paper figure 3 prog1",
	  "S1 r y 2\nS2 w y 1\nS2 w y 2\nS3 w x 1\nS3 w x 2\nS3 w x 3\nS4 r x 2\nS4 r x 2\n", 1 },
	/* Figure 3, Prog2: the outer blocks conflict both ways */
	{ "paper figure 3 prog2", "S1 w x 1\nS1 w x 2\nS1 r y 1\nS2 w y 1\nS2 w y 2\nS2 r x 1\n",
	  -1 },
	/* ping-pong: every hand-over but the last is a preemption */
	{ "ping-pong",
	  "T1 w x 1\nT1 r y 1\nT1 w x 2\nT1 r y 2\nT2 r x 1\nT2 w y 1\nT2 r x 2\nT2 w y 2\n", 3 },
	/* leaving a finished thread is free */
	{ "hand-over after the end", "T1 w x 1\nT2 r x 1\nT2 w x 2\nT3 r x 2\n", 0 },
	/* extreme values are values like any other */
	{ "extreme values",
	  "init x -9223372036854775808\nT1 r x -9223372036854775808\nT1 w x 9223372036854775807\n"
	  "T2 r x 9223372036854775807\n",
	  0 },
	{ "extreme values differ", "init x -9223372036854775808\nT1 r x 9223372036854775807\n",
	  -1 },
	/* variables are told apart by name, 0x10 is not 16 */
	{ "hex variable", "T1 w 0x10 1\nT2 r 16 1\n", -1 },
	/* segments would be separate: here one program with two threads */
	{ "three threads chain", "T1 w a 1\nT1 r c 1\nT2 r a 1\nT2 w b 1\nT3 r b 1\nT3 w c 1\n",
	  1 },
};

static const size_t nlitmus = sizeof(litmus) / sizeof(litmus[0]);

static int applies(int err, const char *solver)
{
	if (err == -EINVAL && strcmp(solver, "auto") != 0 && strcmp(solver, "exact") != 0)
		return 0;
	assert_int_equal(err, 0);
	return 1;
}

static void check_witness(const struct vsc_program *p, const struct vsc_result *res, long max)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	long pre = -1;
	char why[128];

	assert_int_equal(n, vsc_program_event_count(p));
	if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)))
		fail_msg("bad witness: %s", why);
	assert_int_equal(pre, vsc_result_preemptions(res));
	assert_true(pre <= max);
}

static void test_litmus(void **state)
{
	(void)state;
	for (const char *const *solver = vsc_solver_names(); *solver; solver++) {
		size_t decided = 0;
		for (size_t i = 0; i < nlitmus; i++) {
			const struct litmus *l = &litmus[i];
			struct vsc_trace *trace = parse_text(l->text, NULL);
			const struct vsc_program *p = only_program(trace);
			struct vsc_result *res;
			int err;

			assert_non_null(p);
			/* the least */
			VSC_OPTS(vsc_check_opts, min, .solver = *solver, .minimize = true);
			err = vsc_check(p, &min, &res);
			if (!applies(err, *solver)) {
				vsc_trace_free(trace);
				continue;
			}
			decided++;
			if (vsc_result_preemptions(res) != l->least)
				fail_msg("%s: solver %s: least %ld, expected %ld", l->name, *solver,
					 vsc_result_preemptions(res), l->least);
			assert_int_equal(vsc_result_verdict(res),
					 l->least >= 0 ? VSC_CONSISTENT : VSC_INCONSISTENT);
			if (l->least >= 0)
				check_witness(p, res, l->least);
			else
				assert_int_equal(vsc_result_witness(res, NULL), 0);
			vsc_result_free(res);
			/* unbounded, with a witness */
			VSC_OPTS(vsc_check_opts, any, .solver = *solver, .want_witness = true);
			assert_int_equal(vsc_check(p, &any, &res), 0);
			if ((vsc_result_verdict(res) == VSC_CONSISTENT) != (l->least >= 0))
				fail_msg("%s: solver %s: wrong verdict", l->name, *solver);
			if (l->least >= 0)
				check_witness(p, res, LONG_MAX);
			vsc_result_free(res);
			/* bounds around the least */
			for (long pi = 0; pi <= (l->least >= 0 ? l->least : 3); pi++) {
				VSC_OPTS(vsc_check_opts, b, .solver = *solver, .bounded = true,
					 .preemptions = (unsigned long)pi, .want_witness = true);
				assert_int_equal(vsc_check(p, &b, &res), 0);
				int expect = l->least >= 0 && pi >= l->least;
				if ((vsc_result_verdict(res) == VSC_CONSISTENT) != expect)
					fail_msg("%s: solver %s: -p %ld: wrong verdict", l->name,
						 *solver, pi);
				if (expect)
					check_witness(p, res, pi);
				vsc_result_free(res);
			}
			vsc_trace_free(trace);
		}
		printf("solver %s decided %zu of %zu litmus tests\n", *solver, decided, nlitmus);
		if (strcmp(*solver, "exact") == 0 || strcmp(*solver, "auto") == 0)
			assert_int_equal(decided, nlitmus);
	}
}

/* Every segment is its own execution: a consistent and an inconsistent one. */
static void test_segments_decided_apart(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_text("init x 0\nsegment ok\nT1 w x 1\nT2 r x 1\n"
					     "segment bad\nT1 w x 1\nT1 r x 0\n",
					     NULL);
	struct vsc_result *res;

	assert_int_equal(vsc_trace_program_count(trace), 2);
	assert_int_equal(vsc_check(vsc_trace_program(trace, 0), NULL, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	vsc_result_free(res);
	assert_int_equal(vsc_check(vsc_trace_program(trace, 1), NULL, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
	vsc_result_free(res);
	vsc_trace_free(trace);
}

static void test_bad_options(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_text("T1 w x 1\n", NULL);
	const struct vsc_program *p = only_program(trace);
	struct vsc_result *res = (struct vsc_result *)&res;

	assert_int_equal(vsc_check(NULL, NULL, &res), -EINVAL);
	assert_int_equal(vsc_check(p, NULL, NULL), -EINVAL);
	struct vsc_check_opts tiny = { .sz = 1 };
	assert_int_equal(vsc_check(p, &tiny, &res), -EINVAL);
	assert_null(res);
	VSC_OPTS(vsc_check_opts, negative, .timeout_s = -1);
	assert_int_equal(vsc_check(p, &negative, &res), -EINVAL);
	VSC_OPTS(vsc_check_opts, unknown, .solver = "no-such-solver");
	assert_int_equal(vsc_check(p, &unknown, &res), -ENOENT);
	/* NULL options: unbounded, no witness asked */
	assert_int_equal(vsc_check(p, NULL, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	assert_non_null(vsc_result_solver(res));
	assert_true(vsc_result_time(res) >= 0);
	vsc_result_free(res);
	/* a huge bound is no bound */
	VSC_OPTS(vsc_check_opts, huge, .bounded = true, .preemptions = (unsigned long)-1);
	assert_int_equal(vsc_check(p, &huge, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	vsc_result_free(res);
	/* a bigger struct from a newer caller is fine */
	struct {
		struct vsc_check_opts o;
		char future[64];
	} bigger = { .o = { .sz = sizeof(bigger) } };
	assert_int_equal(vsc_check(p, &bigger.o, &res), 0);
	vsc_result_free(res);
	vsc_result_free(NULL);
	vsc_trace_free(trace);
	/* every listed solver name is accepted */
	for (const char *const *n = vsc_solver_names(); *n; n++) {
		VSC_OPTS(vsc_check_opts, o, .solver = *n, .bounded = true);
		trace = parse_text("T1 w x 1\n", NULL);
		int err = vsc_check(only_program(trace), &o, &res);
		assert_true(err == 0 || err == -EINVAL);
		vsc_result_free(res);
		vsc_trace_free(trace);
	}
}

/* Many threads each writing a value and reading it back (which needs no
 * other write in between), and one thread reading a value written once,
 * then another, then the first again: inconsistent, and the exact search
 * must walk a huge state space to know it. */
static struct vsc_program *hard_program(unsigned threads, unsigned pairs)
{
	struct vsc_program *p = vsc_program_new();
	char name[16];
	int x;

	assert_non_null(p);
	x = vsc_program_add_var(p, "x");
	int reader = vsc_program_add_thread(p, "R");
	for (unsigned t = 0; t < threads; t++) {
		snprintf(name, sizeof(name), "W%u", t);
		int th = vsc_program_add_thread(p, name);
		for (unsigned i = 0; i < pairs; i++) {
			struct vsc_event w = { .kind = VSC_WRITE,
					       .var = (uint32_t)x,
					       .value = (t + 1) * 100 + i };
			struct vsc_event r = { .kind = VSC_READ,
					       .var = (uint32_t)x,
					       .value = w.value };
			assert_int_equal(vsc_program_append(p, (size_t)th, &w, 0), 0);
			assert_int_equal(vsc_program_append(p, (size_t)th, &r, 0), 0);
		}
	}
	for (int i = 0; i < 3; i++) {
		struct vsc_event r = { .kind = VSC_READ,
				       .var = (uint32_t)x,
				       .value = i == 1 ? 200 : 100 };
		assert_int_equal(vsc_program_append(p, (size_t)reader, &r, 0), 0);
	}
	return p;
}

static void test_timeout_gives_unknown(void **state)
{
	(void)state;
	struct vsc_program *p = hard_program(12, 4);
	struct vsc_result *res;

	VSC_OPTS(vsc_check_opts, o, .solver = "exact", .timeout_s = 0.1, .want_witness = true);
	assert_int_equal(vsc_check(p, &o, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_UNKNOWN);
	assert_int_equal(vsc_result_preemptions(res), -1);
	assert_int_equal(vsc_result_witness(res, NULL), 0);
	vsc_result_free(res);
	VSC_OPTS(vsc_check_opts, m, .solver = "exact", .timeout_s = 0.1, .minimize = true);
	assert_int_equal(vsc_check(p, &m, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_UNKNOWN);
	assert_int_equal(vsc_result_preemptions(res), -1);
	vsc_result_free(res);
	/* a memory limit stops it too */
	VSC_OPTS(vsc_check_opts, mem, .solver = "exact", .memory_limit = 1 << 16);
	assert_int_equal(vsc_check(p, &mem, &res), 0);
	assert_int_equal(vsc_result_verdict(res), VSC_UNKNOWN);
	vsc_result_free(res);
	vsc_program_free(p);
}

/* A timeout too large for the clock arithmetic is no limit at all: the
 * search runs to its end. */
static void test_huge_timeout(void **state)
{
	(void)state;
	struct vsc_program *p = hard_program(5, 2); /* small enough to finish */
	struct vsc_result *res;
	const double timeouts[] = { 1e30, 1e300, 9.3e18, 1e12, INFINITY };

	for (size_t i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
		VSC_OPTS(vsc_check_opts, o, .solver = "exact", .timeout_s = timeouts[i]);
		assert_int_equal(vsc_check(p, &o, &res), 0);
		if (vsc_result_verdict(res) != VSC_INCONSISTENT)
			fail_msg("timeout %g: verdict %d", timeouts[i], vsc_result_verdict(res));
		vsc_result_free(res);
	}
	vsc_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_litmus),       cmocka_unit_test(test_segments_decided_apart),
		cmocka_unit_test(test_bad_options),  cmocka_unit_test(test_timeout_gives_unknown),
		cmocka_unit_test(test_huge_timeout),
	};
	return cmocka_run_group_tests_name("solver", tests, NULL, NULL);
}
