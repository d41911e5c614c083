/* SPDX-License-Identifier: MIT */
/* The refutation at a stale read (stale_refute.c) against the exact search,
 * on small random programs whose variables have one or two writer threads
 * each (3-5 threads, few values, RMWs, `init ?` and known inits, wrong
 * reads): every program it refutes is inconsistent for the exact solver
 * (with no bound: an exhaustive search over interleavings), with the
 * prefix programs decided by the exact solver and, for a quarter, by auto;
 * and it refutes some, so that a refutation that never closes a case
 * cannot pass. VSC_STALE_REFUTE_SEED and VSC_STALE_REFUTE_COUNT change the
 * run (offline stress). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "part_solvers.h"
#include "random_program.h"
#include "sc_moments.h"
#include "solver.h"
#include "stale_bounds.h"
#include "stale_refute.h"
#include "testutil.h"

#define PROGRAMS 8000
#define MOMENT_PROGRAMS 8000
#define MOMENT_STATES 400000 /* a program's states, else it is skipped */
#define MOMENT_THREADS 8

struct tally {
	int refuted, inconsistent, wrong;
};

/* One refutation's answer checked against the truth (exact, no bound). */
static void check_refute(const struct vsc_program *p, writer_group_solve_fn solve,
			 enum vsc_verdict truth, struct tally *n)
{
	struct budget b;
	int r;

	memset(&b, 0, sizeof(b));
	b.memory_limit = (size_t)1 << 30;
	r = stale_refute(p, &b, 1UL << 30, solve);
	assert_true(r == STALE_REFUTE_OPEN || r == STALE_REFUTE_REFUTED);
	if (r != STALE_REFUTE_REFUTED)
		return;
	n->refuted++;
	if (truth != VSC_INCONSISTENT) {
		n->wrong++;
		dump_program("a stale read's refutation is wrong", p);
	}
}

static void refutations_agree_with_exact(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_REFUTE_SEED", 0x5ef07eUL);
	int programs = (int)test_env_number("VSC_STALE_REFUTE_COUNT", PROGRAMS);
	struct tally by_exact = { 0, 0, 0 }, by_auto = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 8, 1, 2);
		struct vsc_program *p = random_program(&seed, &shape);
		struct vsc_result *plain;
		enum vsc_verdict truth;
		assert_non_null(p);
		plain = decide(p, "exact", -1, 0);
		truth = vsc_result_verdict(plain);
		by_exact.inconsistent += truth == VSC_INCONSISTENT;
		check_refute(p, exact_part_solve, truth, &by_exact);
		if (i % 4 == 0)
			check_refute(p, auto_part_solve, truth, &by_auto);
		vsc_result_free(plain);
		vsc_program_free(p);
	}
	printf("stale refute: %d of %d inconsistent programs refuted (prefixes by exact), %d "
	       "of a quarter (by auto); %d programs\n",
	       by_exact.refuted, by_exact.inconsistent, by_auto.refuted, programs);
	assert_int_equal(by_exact.wrong, 0);
	assert_int_equal(by_auto.wrong, 0);
	/* it refutes some: the test can tell a refutation that never closes */
	assert_true(by_exact.refuted * 10 > by_exact.inconsistent);
	assert_true(by_auto.refuted * 40 > by_exact.inconsistent);
}

/* A prefix program's solve that decides nothing: the cases close by the
 * bounds alone (stale_bounds.c), the corridors of two writers with them. */
static int no_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
			 struct vsc_result *res)
{
	(void)sp;
	(void)q;
	(void)b;
	res->verdict = VSC_UNKNOWN;
	return 0;
}

/* The bounds alone, on programs where a variable's two writers read each
 * other's writes and other threads read both (the corridor's shape): every
 * refutation is right, and the bounds refute some. */
static void bounds_alone_agree_with_exact(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_REFUTE_SEED", 0xb0a7d5UL);
	int programs = (int)test_env_number("VSC_STALE_REFUTE_COUNT", PROGRAMS);
	struct tally n = { 0, 0, 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 10, 1, 2);
		struct vsc_program *p;
		struct vsc_result *plain;
		enum vsc_verdict truth;
		shape.rmw_pct = 0;
		p = random_program(&seed, &shape);
		assert_non_null(p);
		plain = decide(p, "exact", -1, 0);
		truth = vsc_result_verdict(plain);
		n.inconsistent += truth == VSC_INCONSISTENT;
		check_refute(p, no_part_solve, truth, &n);
		vsc_result_free(plain);
		vsc_program_free(p);
	}
	printf("stale refute, the bounds alone: %d of %d inconsistent programs refuted; %d "
	       "programs\n",
	       n.refuted, n.inconsistent, programs);
	assert_int_equal(n.wrong, 0);
	assert_true(n.refuted * 20 > n.inconsistent);
}

struct moment_tally {
	int programs, skipped, boxes, contradicted, narrowed, cut_cells, wrong;
};

static int inside(const uint32_t *q, const uint32_t *L, const uint32_t *U, uint32_t k)
{
	for (uint32_t t = 0; t < k; t++)
		if (q[t] < L[t] || q[t] > U[t])
			return 0;
	return 1;
}

/* The box [L0, U0] tightened by the bounds: every moment of an SC
 * interleaving inside it before is inside it after, and none when the
 * bounds contradict; then the two boxes of a random split of its widest
 * window (the refutation halves it). */
static void check_box(struct cut *c, const struct sc_moments *m, const uint32_t *L0,
		      const uint32_t *U0, int depth, uint64_t *seed, struct moment_tally *n)
{
	uint32_t k = c->k, L[MOMENT_THREADS], U[MOMENT_THREADS], wide = 0;
	int r, wrong = 0;

	memcpy(L, L0, k * sizeof(*L));
	memcpy(U, U0, k * sizeof(*U));
	r = cut_tighten(c, L, U);
	assert_true(r == CUT_CONTRADICTS || r == CUT_HOLDS);
	n->boxes++;
	n->contradicted += r == CUT_CONTRADICTS;
	n->narrowed +=
		r == CUT_HOLDS && (memcmp(L, L0, k * sizeof(*L)) || memcmp(U, U0, k * sizeof(*U)));
	for (size_t s = 0; s < m->n && !wrong; s++) {
		const uint32_t *q = &m->pos[s * k];
		if (inside(q, L0, U0, k) && (r == CUT_CONTRADICTS || !inside(q, L, U, k)))
			wrong = 1;
	}
	if (wrong) {
		n->wrong++;
		dump_program("the bounds at a read leave out a moment of an SC interleaving", c->p);
		return;
	}
	if (r == CUT_CONTRADICTS || depth == 0)
		return;
	for (uint32_t t = 1; t < k; t++)
		if (U[t] - L[t] > U[wide] - L[wide])
			wide = t;
	if (U[wide] == L[wide])
		return;
	/* split the widest window at a random point: the box below and above */
	uint32_t cut = L[wide] + random_below(seed, U[wide] - L[wide]), L2[MOMENT_THREADS],
		 U2[MOMENT_THREADS];
	memcpy(L2, L, k * sizeof(*L2));
	memcpy(U2, U, k * sizeof(*U2));
	L2[wide] = cut + 1;
	U2[wide] = cut;
	check_box(c, m, L, U2, depth - 1, seed, n);
	check_box(c, m, L2, U, depth - 1, seed, n);
}

/* Every corridor against the moments: when A does its event i, B has done
 * at most most[i] events; a consistent program's corridors are never
 * empty. */
static void check_corridors(struct cut *c, const struct sc_moments *m, struct moment_tally *n)
{
	uint32_t k = c->k;
	int wrong = 0;

	for (uint32_t A = 0; A < k; A++)
		for (uint32_t B = 0; B < k; B++) {
			const uint32_t *most = A == B ? NULL : cut_corridor(c, A, B);
			uint32_t la = c->p->threads[A].length, lb = c->p->threads[B].length;
			if (!most)
				continue;
			for (uint32_t i = 0; i < la; i++)
				n->cut_cells += most[i] < lb;
			for (size_t s = 0; s < m->n; s++) {
				const uint32_t *q = &m->pos[s * k];
				if (m->steps[s] >> A & 1 && q[B] > most[q[A]])
					wrong = 1;
			}
		}
	if (m->consistent && c->corr_empty)
		wrong = 1;
	if (wrong) {
		n->wrong++;
		dump_program("a corridor leaves out a moment of an SC interleaving", c->p);
	}
}

/* The refutation's cases of every read that needs another thread's write
 * (R exactly at the read, the writer w from its write of the value read up
 * to its next write of the variable), checked as boxes. */
static void check_cases(struct cut *c, const struct sc_moments *m, uint64_t *seed,
			struct moment_tally *n)
{
	uint32_t k = c->k, L[MOMENT_THREADS], U[MOMENT_THREADS];

	for (uint32_t r = 0; r < c->n_needs; r++) {
		const struct need *e = &c->needs[r];
		for (uint32_t w = 0; w < k; w++) {
			uint32_t lo = c->first[w * c->vars + e->z],
				 hi = c->first[w * c->vars + e->z + 1];
			if (w == e->t)
				continue;
			for (uint32_t s = lo; s < hi; s++) {
				if (c->val[s] != e->u)
					continue;
				for (uint32_t t = 0; t < k; t++)
					L[t] = 0, U[t] = c->p->threads[t].length;
				L[w] = c->at[s] + 1;
				U[w] = s + 1 < hi ? c->at[s + 1] : c->p->threads[w].length;
				L[e->t] = U[e->t] = e->j;
				check_box(c, m, L, U, 2, seed, n);
			}
		}
	}
}

/* c made for p under budget b, with the corridors. */
static void cut_with_corridors(struct cut *c, const struct vsc_program *p, struct budget *b)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->b = b;
	c->end = ~0UL;
	c->corridors = 1;
	assert_int_equal(cut_init(c), 0);
}

/* The bounds themselves (stale_bounds.c) against every moment of every SC
 * interleaving, found by brute force: the corridors of two writers, and
 * the boxes of the refutation's cases and their halves tightened. A bound
 * one event too tight fails here even where no refutation goes wrong. */
static void bounds_hold_at_every_moment(void **state)
{
	uint64_t seed = test_env_number("VSC_STALE_REFUTE_SEED", 0x3d0e47UL);
	int programs = (int)test_env_number("VSC_STALE_REFUTE_COUNT", MOMENT_PROGRAMS);
	struct moment_tally n = { 0 };

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = random_two_writer_shape(&seed, i, 8, 1, 2);
		struct vsc_program *p = random_program(&seed, &shape);
		struct sc_moments m;
		struct budget b;
		struct cut c;
		int r;
		assert_non_null(p);
		r = sc_moments(p, MOMENT_STATES, &m);
		assert_true(r == 0 || r == -E2BIG);
		if (r) {
			n.skipped++;
			vsc_program_free(p);
			continue;
		}
		memset(&b, 0, sizeof(b));
		cut_with_corridors(&c, p, &b);
		check_corridors(&c, &m, &n);
		check_cases(&c, &m, &seed, &n);
		n.programs++;
		cut_free(&c);
		sc_moments_free(&m);
		vsc_program_free(p);
	}
	printf("stale bounds at every moment: %d programs (%d skipped), %d boxes (%d contradicted, "
	       "%d narrowed), %d corridor cells below the end\n",
	       n.programs, n.skipped, n.boxes, n.contradicted, n.narrowed, n.cut_cells);
	assert_int_equal(n.wrong, 0);
	/* they bound something: a test of bounds that never move cannot fail */
	assert_true(n.contradicted * 20 > n.boxes);
	assert_true(n.narrowed * 10 > n.boxes);
	assert_true(n.cut_cells > n.programs);
}

/* Two threads passing x back and forth n times (T0 stores 2i + 1 and
 * loads 2i + 2, T1 loads 2i + 1 and stores 2i + 2): SC, and each thread's
 * loads need the other's stores, the corridor's shape. */
static struct vsc_program *ping_pong(unsigned n)
{
	struct vsc_program *p = named_program(2, 1);

	assert_non_null(p);
	vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 0);
	for (unsigned i = 0; i < n; i++) {
		append_event(p, 0, VSC_WRITE, 0, 2 * i + 1, 0);
		append_event(p, 0, VSC_READ, 0, 2 * i + 2, 0);
		append_event(p, 1, VSC_READ, 0, 2 * i + 1, 0);
		append_event(p, 1, VSC_WRITE, 0, 2 * i + 2, 0);
	}
	return p;
}

/* A corridor's passes stop when the budget does (its work cap here, as at
 * the deadline): nothing built, nothing concluded (not empty), and the
 * bounds and the refutation say they stopped. They ran every pass past
 * the limit (--timeout 40 answered after 57 s). */
static void corridor_stops_with_the_budget(void **state)
{
	struct vsc_program *p = ping_pong(2000);
	uint32_t L[2] = { 0, 0 }, U[2];
	struct budget b;
	struct cut c;

	(void)state;
	U[0] = p->threads[0].length;
	U[1] = p->threads[1].length;
	for (int capped = 0; capped < 2; capped++) {
		memset(&b, 0, sizeof(b));
		b.work_cap = capped ? 1 : 0;
		cut_with_corridors(&c, p, &b);
		if (!capped) { /* the corridor exists: the capped run's NULL is the stop */
			assert_non_null(cut_corridor(&c, 0, 1));
			assert_int_equal(c.corr_stopped, 0);
		} else {
			assert_null(cut_corridor(&c, 0, 1));
			assert_null(cut_corridor(&c, 1, 0));
			assert_int_equal(c.corr_stopped, 1);
			assert_true(b.steps < 2 * p->event_count);
			assert_int_equal(cut_tighten(&c, L, U), CUT_STOPPED);
		}
		assert_int_equal(c.corr_empty, 0);
		cut_free(&c);
	}
	memset(&b, 0, sizeof(b));
	b.work_cap = 1;
	b.memory_limit = (size_t)1 << 30;
	assert_int_equal(stale_refute(p, &b, 1UL << 30, no_part_solve), STALE_REFUTE_OPEN);
	vsc_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refutations_agree_with_exact),
		cmocka_unit_test(bounds_alone_agree_with_exact),
		cmocka_unit_test(bounds_hold_at_every_moment),
		cmocka_unit_test(corridor_stops_with_the_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
