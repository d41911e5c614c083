/* SPDX-License-Identifier: MIT */
/* The lower bound's table of the forced orders (saturate_bound.c) against
 * a plain closure of the same orders, on random 1-Writer programs where it
 * comes from two passes, not from stored vectors: values that identify
 * writes, and few values with the reads' first ranges (as beyond the
 * vectors' cap); long runs of one thread, stale reads (cycles), reads of
 * values never written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "random_program.h"
#include "saturate.h"
#include "solver.h"

#define MAX_EVENTS 400
#define MAX_THREADS 6
#define MAX_VARS 5

struct flat {
	uint32_t k, n, base[MAX_THREADS + 1], thread[MAX_EVENTS], index[MAX_EVENTS];
	uint32_t from[3 * MAX_EVENTS], to[3 * MAX_EVENTS], nedges, indeg[MAX_EVENTS];
	uint32_t out_off[MAX_EVENTS + 1], out[3 * MAX_EVENTS];
	uint32_t vec[MAX_EVENTS][MAX_THREADS];
};

/* A random 1-Writer program run in random runs of one thread; writes write
 * fresh values (values 0) or one of values, a few reads see an old value or
 * one never written. */
static struct vsc_program *runs_program(uint64_t *seed, uint32_t k, uint32_t vars, uint32_t n,
					uint32_t values)
{
	struct vsc_program *p = vsc_program_new();
	int64_t mem[MAX_VARS], fresh = 1;
	uint32_t owner[MAX_VARS];
	char name[16];

	for (uint32_t t = 0; t < k; t++) {
		snprintf(name, sizeof(name), "T%u", t);
		vsc_program_add_thread(p, name);
	}
	for (uint32_t v = 0; v < vars; v++) {
		snprintf(name, sizeof(name), "x%u", v);
		vsc_program_add_var(p, name);
		vsc_program_set_init(p, v, VSC_INIT_KNOWN, 0);
		owner[v] = (uint32_t)(random_next(seed) % k);
		mem[v] = 0;
	}
	for (uint32_t done = 0; done < n;) {
		uint32_t t = (uint32_t)(random_next(seed) % k);
		uint32_t run = 1 + (uint32_t)(random_next(seed) % 40);
		for (; run > 0 && done < n; run--, done++) {
			uint32_t v = (uint32_t)(random_next(seed) % vars);
			struct vsc_event e = { .kind = VSC_READ, .var = v, .value = mem[v] };
			if (owner[v] == t && random_next(seed) % 2) {
				e.kind = VSC_WRITE;
				e.value = mem[v] =
					values ? (int64_t)(random_next(seed) % values) : fresh++;
			} else if (random_next(seed) % 200 == 0) {
				e.value = (int64_t)(random_next(seed) %
						    (uint64_t)(fresh + values + 1));
			}
			vsc_program_append(p, t, &e, 0);
		}
	}
	return p;
}

static void add_edge(struct flat *g, uint32_t from, uint32_t to)
{
	g->from[g->nedges] = from;
	g->to[g->nedges++] = to;
	g->indeg[to]++;
}

/* The edges by source (out_off, out). */
static void index_edges(struct flat *g)
{
	uint32_t fill[MAX_EVENTS + 1] = { 0 };

	memset(g->out_off, 0, sizeof(g->out_off));
	for (uint32_t e = 0; e < g->nedges; e++)
		g->out_off[g->from[e] + 1]++;
	for (uint32_t f = 0; f < g->n; f++)
		g->out_off[f + 1] += g->out_off[f];
	for (uint32_t e = 0; e < g->nedges; e++)
		g->out[g->out_off[g->from[e]] + fill[g->from[e]]++] = g->to[e];
}

/* The orders of the first ranges: program order; for a read by another
 * thread of x's writer W, with [lo, hi] the first and the last epoch holding
 * its value (epoch 0: the initial 0; epoch j: W's j-th write of x), the
 * write opening lo before it and it before the write opening hi + 1.
 * Returns 0, or 1 when some read sees a value nothing gives. */
static int build_orders(struct flat *g, const struct vsc_program *p)
{
	uint32_t k = (uint32_t)vsc_program_thread_count(p), writer[MAX_VARS];

	memset(g, 0, sizeof(*g));
	memset(writer, 0xff, sizeof(writer));
	g->k = k;
	for (uint32_t t = 0; t < k; t++) {
		g->base[t] = g->n;
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++, g->n++) {
			const struct vsc_event *e = &vsc_program_events(p, t)[i];
			g->thread[g->n] = t;
			g->index[g->n] = i;
			if (i > 0)
				add_edge(g, g->n - 1, g->n);
			if (e->kind != VSC_READ)
				writer[e->var] = t; /* one writer per variable */
		}
	}
	g->base[k] = g->n;
	for (uint32_t f = 0; f < g->n; f++) {
		const struct vsc_event *e = &vsc_program_events(p, g->thread[f])[g->index[f]];
		uint32_t w = writer[e->var], first = UINT32_MAX, last = UINT32_MAX,
			 next = UINT32_MAX;
		int found = e->value == 0, init = e->value == 0;
		if (e->kind != VSC_READ || w == UINT32_MAX || w == g->thread[f])
			continue; /* no orders from other threads */
		for (uint32_t q = g->base[w]; q < g->base[w + 1]; q++) {
			const struct vsc_event *o = &vsc_program_events(p, w)[g->index[q]];
			if (o->var != e->var || o->kind == VSC_READ)
				continue;
			if (found && next == UINT32_MAX && o->value != e->value)
				next = q; /* the first write after an epoch of the value */
			if (o->value == e->value) {
				first = first == UINT32_MAX ? q : first;
				last = q;
				found = 1;
				next = UINT32_MAX;
			}
		}
		if (!found)
			return 1; /* nothing gives the value */
		if (!init)
			add_edge(g, first, f);
		if (next != UINT32_MAX)
			add_edge(g, f, next);
		(void)last;
	}
	return 0;
}

/* Vectors by a topological pass; 0 on a cycle. */
static int closure(struct flat *g)
{
	uint32_t queue[MAX_EVENTS], head = 0, tail = 0;

	for (uint32_t f = 0; f < g->n; f++)
		if (g->indeg[f] == 0)
			queue[tail++] = f;
	index_edges(g);
	while (head < tail) {
		uint32_t f = queue[head++];
		for (uint32_t s = g->out_off[f]; s < g->out_off[f + 1]; s++) {
			uint32_t to = g->out[s];
			for (uint32_t u = 0; u < g->k; u++)
				if (g->vec[f][u] > g->vec[to][u])
					g->vec[to][u] = g->vec[f][u];
			if (g->vec[to][g->thread[f]] < g->index[f] + 1)
				g->vec[to][g->thread[f]] = g->index[f] + 1;
			if (--g->indeg[to] == 0)
				queue[tail++] = to;
		}
	}
	return head == g->n;
}

static void compare_table(const struct flat *g, const struct forced *f)
{
	for (uint32_t u = 0; u < g->k; u++) {
		uint32_t len = g->base[u + 1] - g->base[u];
		for (uint32_t v = 0; v < g->k && len > 0; v++) {
			uint32_t last = g->vec[g->base[u] + len - 1][v];
			assert_int_equal(f->last[u * g->k + v], last);
			if (v != u && last > 0)
				assert_int_equal(f->back[u * g->k + v],
						 g->vec[g->base[v] + last - 1][u]);
		}
	}
}

static void check_one(struct vsc_program *p, int *cycles, int *tables, int few)
{
	static struct flat g;
	VSC_OPTS(vsc_check_opts, opts);
	struct analysis a;
	struct forced f;
	struct budget b;
	int refuted, r;

	budget_init(&b, &opts);
	assert_int_equal(analysis_build(&a, p), 0);
	refuted = build_orders(&g, p) || !closure(&g);
	r = forced_build(&f, p, &a, &b, FORCED_BOUND | (few ? FORCED_FIRST_RANGES : 0));
	assert_int_equal(r, 0);
	assert_int_equal(f.refuted, refuted);
	assert_null(f.after); /* first ranges: no orders kept */
	if (!refuted) {
		compare_table(&g, &f);
		(*tables)++;
	} else {
		(*cycles)++;
	}
	forced_free(&f);
	analysis_free(&a);
}

static void run(uint64_t seed, int count, uint32_t values)
{
	int cycles = 0, tables = 0;

	for (int i = 0; i < count; i++) {
		uint32_t k = 2 + (uint32_t)(random_next(&seed) % (MAX_THREADS - 1));
		uint32_t vars = 1 + (uint32_t)(random_next(&seed) % MAX_VARS);
		uint32_t n = 1 + (uint32_t)(random_next(&seed) % MAX_EVENTS);
		struct vsc_program *p = runs_program(&seed, k, vars, n, values);
		assert_non_null(p);
		check_one(p, &cycles, &tables, values > 0);
		vsc_program_free(p);
	}
	/* both kinds must be met, or the test proves little */
	assert_true(cycles > count / 30);
	assert_true(tables > count / 3);
}

static void bound_table_matches_closure(void **state)
{
	(void)state;
	run(0xb0b0cafeULL, 3000, 0);
}

static void first_ranges_table_matches_closure(void **state)
{
	(void)state;
	run(0xf00dcafeULL, 1500, 2);
	run(0xfeedcafeULL, 1500, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bound_table_matches_closure),
		cmocka_unit_test(first_ranges_table_matches_closure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
