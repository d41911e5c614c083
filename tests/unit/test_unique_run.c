/* SPDX-License-Identifier: MIT */
/* The unique run (userspace/lib/unique_run.c) on token chains: a thread
 * reads the token's last value, perhaps works on a variable of its own,
 * and writes the next value, where the next thread reads it. Most have one
 * SC interleaving at most; perturbed ones (a wrong value, a value written
 * twice, init lines, RMWs, a thread starting with a write) have several or
 * none. Each is decided by auto and by the exact search: same verdict and
 * least preemptions, every witness verified; and the unique run must have
 * decided a good share of them itself (consistent and inconsistent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "random_program.h"
#include "unique_run.h"

static unsigned below(uint64_t *s, unsigned n)
{
	return (unsigned)(random_next(s) % n);
}

static void append(struct vsc_program *p, unsigned t, uint32_t kind, unsigned var, int64_t value,
		   int64_t new_value)
{
	struct vsc_event e = { .kind = kind, .var = var, .value = value, .new_value = new_value };

	assert_int_equal(vsc_program_append(p, t, &e, 0), 0);
}

/* The token (variables 0..tokens-1) passed `steps` times among k threads;
 * variable tokens + t is thread t's own. */
static struct vsc_program *token_chain(uint64_t *s, unsigned k, unsigned tokens, unsigned steps)
{
	struct vsc_program *p = vsc_program_new();
	unsigned holder = below(s, k), var = 0, perturb = below(s, 4);
	int64_t value = 1;
	char name[16];

	for (unsigned t = 0; t < k; t++) {
		snprintf(name, sizeof(name), "T%u", t);
		vsc_program_add_thread(p, name);
	}
	for (unsigned v = 0; v < tokens + k; v++) {
		snprintf(name, sizeof(name), "x%u", v);
		vsc_program_add_var(p, name);
		if (below(s, 8) == 0)
			vsc_program_set_init(p, v, below(s, 2) ? VSC_INIT_KNOWN : VSC_INIT_UNKNOWN,
					     below(s, 3));
	}
	append(p, holder, VSC_WRITE, var, value, 0);
	for (unsigned i = 0; i < steps; i++) {
		unsigned next = below(s, k), nvar = below(s, tokens);
		int64_t seen = perturb == 1 && below(s, 12) == 0 ? value + 1 : value;
		int64_t nvalue = perturb == 2 && below(s, 8) == 0 ? value : value + 1;

		if (below(s, 3) == 0)
			append(p, next, VSC_RMW, var, seen, nvalue);
		else {
			append(p, next, VSC_READ, var, seen, 0);
			if (below(s, 4) == 0)
				append(p, next, VSC_WRITE, tokens + next, (int64_t)i, 0);
			append(p, next, VSC_WRITE, nvar, nvalue, 0);
		}
		value = nvalue;
		var = nvar;
	}
	if (perturb == 3) /* a thread that starts with a write: two can start */
		append(p, below(s, k), VSC_WRITE, var, 99, 0);
	return p;
}

static struct vsc_result *decide(const struct vsc_program *p, const char *solver, long bound,
				 int minimize)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0, .minimize = minimize,
		 .want_witness = 1, .solver = solver);
	struct vsc_result *res = NULL;

	assert_int_equal(vsc_check(p, &opts, &res), 0);
	return res;
}

static void compare_on(const struct vsc_program *p, long bound, int minimize)
{
	struct vsc_result *want = decide(p, "exact", bound, minimize);
	struct vsc_result *got = decide(p, "auto", bound, minimize);
	const uint32_t *w;
	size_t n = vsc_result_witness(got, &w);
	long pre = -1;
	char why[200] = "";

	if (vsc_result_verdict(want) != vsc_result_verdict(got) ||
	    (minimize && vsc_result_preemptions(want) != vsc_result_preemptions(got))) {
		vsc_program_write(p, stderr);
		fail_msg("bound %ld min %d: exact says %d (%ld), auto says %d (%ld)", bound,
			 minimize, vsc_result_verdict(want), vsc_result_preemptions(want),
			 vsc_result_verdict(got), vsc_result_preemptions(got));
	}
	if (vsc_result_verdict(got) == VSC_CONSISTENT) {
		if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why)) != 0) {
			vsc_program_write(p, stderr);
			fail_msg("bad witness: %s", why);
		}
		assert_int_equal(pre, vsc_result_preemptions(got));
		assert_true(bound < 0 || pre <= bound);
	}
	vsc_result_free(want);
	vsc_result_free(got);
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
	int decided[2] = { 0, 0 }, programs = 4000;

	(void)state;
	for (int i = 0; i < programs; i++) {
		unsigned k = 2 + below(&seed, 4), tokens = 1 + below(&seed, 2);
		struct vsc_program *p = token_chain(&seed, k, tokens, 1 + below(&seed, 7));
		int v = unique_verdict(p);

		if (v >= 0)
			decided[v == VSC_INCONSISTENT]++;
		compare_on(p, -1, 0);
		compare_on(p, (long)below(&seed, 5), 0);
		compare_on(p, -1, 1);
		compare_on(p, 2, 1);
		vsc_program_free(p);
	}
	/* the programs are made for it: it must decide many, both ways */
	print_message("unique run: %d consistent, %d inconsistent of %d\n", decided[0], decided[1],
		      programs);
	assert_true(decided[0] > programs / 4);
	assert_true(decided[1] > programs / 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unique_run_agrees_with_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
