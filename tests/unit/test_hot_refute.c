/* SPDX-License-Identifier: MIT */
/* Refutations for one variable (userspace/lib/hot_refute.c): on thousands
 * of small random programs of one variable (2-7 threads, few values or
 * values of their own, `init x v` and `init x ?`, RMWs, wrong reads) every
 * program it refutes is inconsistent by exact, and by the brute-force
 * enumeration where that is small enough; it must refute a good share of
 * what exact finds inconsistent (all of it when the values identify the
 * writes); and on hammer-shaped programs whose one stale read sees a value
 * the other thread overwrote before the reader saw it, auto says
 * inconsistent where the witness finds nothing. */
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
#include "random_program.h"
#include "testutil.h"

#define BRUTE_NODES 2000000ULL

static struct random_shape one_variable(uint64_t *seed, int unique)
{
	return (struct random_shape){
		.threads = 2 + random_below(seed, 6),
		.events = 2 + random_below(seed, 23),
		.vars = 1,
		.values = unique ? 64 : 1 + random_below(seed, 4),
		.write_pct = 30 + random_below(seed, 40),
		.rmw_pct = random_below(seed, 2) ? 25 : 0,
		.wrong_pct = random_below(seed, 3) ? 5 : 20,
		.init_pct = 70,
		.unique_last = unique,
	};
}

static int refute(const struct vsc_program *p)
{
	struct vsc_check_opts opts = { 0 };
	struct budget b;
	int r;

	budget_init(&b, &opts);
	r = hot_refute(p, &b);
	assert_true(r == HOT_REFUTED || r == HOT_REFUTE_OPEN);
	return r == HOT_REFUTED;
}

/* A refuted program is inconsistent by exact, and by brute force when it
 * finishes. Returns 1 when exact says inconsistent. */
static int refuted_only_if_inconsistent(const struct vsc_program *p, int *refuted)
{
	struct vsc_result *want = decide(p, "exact", -1, 0);
	int inconsistent = vsc_result_verdict(want) == VSC_INCONSISTENT;
	struct brute_answer ans;

	*refuted = refute(p);
	if (*refuted && !inconsistent) {
		dump_program("refuted but exact says", p);
		fail_msg("exact verdict %d", vsc_result_verdict(want));
	}
	if (*refuted && brute_solve(p, BRUTE_NODES, &ans) == 0 && ans.consistent) {
		dump_program("refuted but brute force finds an SC interleaving", p);
		fail();
	}
	vsc_result_free(want);
	return inconsistent;
}

/* Does some read see a value no write makes and the initial value cannot
 * be (the static refutation, which needs no orders)? */
static int value_never_written(const struct vsc_program *p)
{
	const struct vsc_thread *th = p->threads;
	const struct vsc_var_init *in = &p->inits[0];

	for (uint32_t t = 0; t < program_threads(p); t++)
		for (size_t i = 0; i < th[t].length; i++) {
			const struct vsc_event *e = &th[t].events[i];
			int found = in->kind == VSC_INIT_UNKNOWN ||
				    (in->kind == VSC_INIT_KNOWN && in->value == e->value);
			if (e->kind == VSC_WRITE)
				continue;
			for (uint32_t u = 0; u < program_threads(p) && !found; u++)
				for (size_t j = 0; j < th[u].length && !found; j++) {
					const struct vsc_event *w = &th[u].events[j];
					found = w->kind != VSC_READ &&
						(w->kind == VSC_RMW ? w->new_value : w->value) ==
							e->value;
				}
			if (!found)
				return 1;
		}
	return 0;
}

static void refutes_only_inconsistent(void **state)
{
	uint64_t seed = 0x4ef07e1ULL;
	int inconsistent[2] = { 0 }, refuted[2] = { 0 }, trivial[2] = { 0 },
	    programs = (int)test_share(4000);

	(void)state;
	for (int i = 0; i < programs; i++) {
		int unique = i % 4 == 3, r;
		struct random_shape shape = one_variable(&seed, unique);
		struct vsc_program *p = random_program(&seed, &shape);

		assert_non_null(p);
		inconsistent[unique] += refuted_only_if_inconsistent(p, &r);
		refuted[unique] += r;
		trivial[unique] += r && value_never_written(p);
		vsc_program_free(p);
	}
	print_message("refuted %d of %d inconsistent (%d with a value never written) of few "
		      "values, %d of %d (%d) of values of their own\n",
		      refuted[0], inconsistent[0], trivial[0], refuted[1], inconsistent[1],
		      trivial[1]);
	assert_true(refuted[0] > inconsistent[0] / 2);
	assert_true(refuted[1] > inconsistent[1] * 9 / 10);
}

/* Two threads store 0..n-1 into x and load it back, interleaved at
 * random; one late load of T1 that sees T0's value sees instead the first
 * value of T0 it saw, after it saw a newer one of T0 (T1 stores that value
 * too, but not as its last store: only T0's store is left, and T0's newer
 * store comes between). *stale: one was made. */
static struct vsc_program *stale_hammer(uint64_t *s, unsigned n, int *stale)
{
	struct vsc_program *p = named_program(2, 1);
	unsigned pos[2] = { 0, 0 }, left = 4 * n;
	int64_t mem = 0, first = -1, newest = -1;

	assert_non_null(p);
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	*stale = 0;
	while (left--) {
		unsigned t = pos[0] == 2 * n ? 1 : pos[1] == 2 * n ? 0 : random_below(s, 2);
		struct vsc_event ev = { .var = 0, .kind = pos[t] % 2 ? VSC_READ : VSC_WRITE };
		if (ev.kind == VSC_WRITE)
			mem = pos[t] / 2;
		ev.value = mem;
		if (t == 1 && ev.kind == VSC_READ && mem != pos[1] / 2) { /* T0's value */
			if (!*stale && first >= 0 && newest > first && left < 2 * n &&
			    pos[1] / 2 != first) {
				ev.value = first;
				*stale = 1;
			}
			first = first < 0 ? mem : first;
			newest = mem > newest ? mem : newest;
		}
		assert_int_equal(vsc_program_append(p, t, &ev, 0), 0);
		pos[t]++;
	}
	return p;
}

static void stale_hammer_refuted(void **state)
{
	uint64_t seed = 0x57a1eULL;
	int made = 0;

	(void)state;
	for (int i = 0; i < 20; i++) {
		int stale;
		struct vsc_program *p = stale_hammer(&seed, 2000, &stale);
		struct vsc_check_opts opts = { 0 };
		struct vsc_result *res;
		struct budget b;
		uint32_t *witness;
		long pre;

		budget_init(&b, &opts);
		if (stale) {
			made++;
			assert_int_equal(hot_var_witness(p, &b, &witness, &pre), HOT_VAR_OPEN);
			assert_int_equal(refute(p), 1);
			res = decide(p, "auto", -1, 0);
			assert_int_equal(vsc_result_verdict(res), VSC_INCONSISTENT);
			vsc_result_free(res);
		}
		vsc_program_free(p);
	}
	print_message("%d stale hammers refuted\n", made);
	assert_true(made > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refutes_only_inconsistent),
		cmocka_unit_test(stale_hammer_refuted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
