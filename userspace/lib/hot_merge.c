/* SPDX-License-Identifier: MIT */
/* Fewer preemptions in an SC interleaving of one variable by joining a
 * thread's slice with its next one: with S1 and S2 two slices of thread t
 * and X what runs between them, S1 X S2 becomes S1 S2 X or X S1 S2 when
 * every read in that window still sees its value and the window leaves
 * memory as it did (so nothing after it changes), and the preemptions at
 * its ends and inside go down. Each thread's events keep their order. */
#include "hot_merge.h"

#include <errno.h>
#include <stdlib.h>

/* Events of a window S1 X S2 at most: each try costs its length. */
#define MERGE_WINDOW 4096
/* Passes over the witness at most (each is linear: at most one try of
 * MERGE_WINDOW events per slice) */
#define MERGE_PASSES 4

struct merge {
	const struct vsc_program *p;
	uint32_t *w;
	size_t n;
	uint32_t *pos;  /* per thread: events before the window */
	uint32_t *seen; /* per thread: events in the window so far (scratch) */
	uint32_t idx[MERGE_WINDOW + 1];
	uint32_t moved[MERGE_WINDOW];
	int64_t mem;
};

static const struct vsc_event *event(const struct merge *m, uint32_t t, uint32_t i)
{
	return &m->p->threads[t].events[i];
}

/* Is leaving thread t after its event i, for thread u, a preemption? */
static int preempts(const struct merge *m, uint32_t t, uint32_t i, uint32_t u)
{
	return t != u && i + 1 < m->p->threads[t].length;
}

/* Runs the window's events in the order of ts (with their indexes idx)
 * from m->mem: 1 when every read sees its value and memory ends at end. */
static int window_runs(const struct merge *m, const uint32_t *ts, const uint32_t *idx, size_t len,
		       int64_t end)
{
	int64_t mem = m->mem;

	for (size_t x = 0; x < len; x++) {
		const struct vsc_event *e = event(m, ts[x], idx[x]);
		if (e->kind != VSC_WRITE && e->value != mem)
			return 0;
		mem = e->kind == VSC_RMW ? e->new_value : e->value;
	}
	return mem == end;
}

/* The window [i, e) holds S1 = [i, j), X = [j, k), S2 = [k, e): tries S1
 * S2 X, then X S1 S2. Returns 1 when one took fewer preemptions (it is in
 * m->w). */
static int try_join(struct merge *m, size_t i, size_t j, size_t k, size_t e)
{
	uint32_t *w = m->w, *idx = m->idx, *mv = m->moved, t = w[i];
	size_t len = e - i, x, y;
	int64_t end = m->mem;
	long before = 0, after[2] = { 0, 0 };
	int ok[2];

	for (x = i; x < e; x++) {
		idx[x - i] = m->pos[w[x]] + m->seen[w[x]]++;
		const struct vsc_event *ev = event(m, w[x], idx[x - i]);
		end = ev->kind == VSC_READ ? end : ev->kind == VSC_RMW ? ev->new_value : ev->value;
	}
	for (x = i; x < e; x++)
		m->seen[w[x]] = 0;
	/* the ends: before i (its last event) and at e (its next one) */
	uint32_t pt = i ? w[i - 1] : UINT32_MAX, pi = i ? m->pos[pt] - 1 : 0;
	uint32_t nt = e < m->n ? w[e] : UINT32_MAX;
#define PRE(ta, ia, tb) ((ta) != UINT32_MAX && (tb) != UINT32_MAX && preempts(m, ta, ia, tb))
	before = PRE(pt, pi, t) + PRE(t, idx[j - 1 - i], w[j]) + PRE(w[k - 1], idx[k - 1 - i], t) +
		 PRE(t, idx[e - 1 - i], nt);
	after[0] =
		PRE(pt, pi, t) + PRE(t, idx[e - 1 - i], w[j]) + PRE(w[k - 1], idx[k - 1 - i], nt);
	after[1] =
		PRE(pt, pi, w[j]) + PRE(w[k - 1], idx[k - 1 - i], t) + PRE(t, idx[e - 1 - i], nt);
#undef PRE
	for (int o = 0; o < 2; o++) {
		uint32_t order[MERGE_WINDOW], oidx[MERGE_WINDOW];
		size_t at = 0;
		/* o = 0: S1 S2 X; o = 1: X S1 S2 */
		size_t parts[2][3][2] = { { { i, j }, { k, e }, { j, k } },
					  { { j, k }, { i, j }, { k, e } } };
		if (after[o] >= before)
			continue;
		for (int s = 0; s < 3; s++)
			for (y = parts[o][s][0]; y < parts[o][s][1]; y++) {
				order[at] = w[y];
				oidx[at++] = idx[y - i];
			}
		ok[o] = window_runs(m, order, oidx, len, end);
		if (!ok[o])
			continue;
		for (y = 0; y < len; y++)
			mv[y] = order[y];
		for (y = 0; y < len; y++)
			w[i + y] = mv[y];
		return 1;
	}
	return 0;
}

/* One pass over the witness; returns the joins made. */
static long merge_pass(struct merge *m)
{
	long joins = 0;
	size_t i = 0;
	int known = m->p->inits[0].kind == VSC_INIT_KNOWN;

	m->mem = m->p->inits[0].value;
	while (i < m->n) {
		uint32_t t = m->w[i];
		size_t j = i, k, e;
		while (j < m->n && m->w[j] == t)
			j++;
		for (k = j; k < m->n && k - i < MERGE_WINDOW && m->w[k] != t; k++)
			;
		for (e = k; e < m->n && e - i < MERGE_WINDOW && m->w[e] == t; e++)
			;
		if (known && j < m->n && k < m->n && m->w[k] == t && e - i < MERGE_WINDOW &&
		    try_join(m, i, j, k, e)) {
			joins++;
			continue; /* the slice at i grew: try it again */
		}
		for (size_t x = i; x < j; x++) {
			const struct vsc_event *ev = event(m, t, m->pos[t]++);
			if (ev->kind != VSC_READ) {
				m->mem = ev->kind == VSC_RMW ? ev->new_value : ev->value;
				known = 1;
			}
		}
		i = j;
	}
	return joins;
}

long hot_merge_slices(const struct vsc_program *p, uint32_t *witness, size_t n)
{
	uint32_t k = program_threads(p);
	struct merge m = { .p = p, .w = witness, .n = n };
	long joins = 0, pass;
	int passes = 0;

	m.pos = calloc(k ? k : 1, sizeof(uint32_t));
	m.seen = calloc(k ? k : 1, sizeof(uint32_t));
	if (!m.pos || !m.seen) {
		free(m.pos);
		free(m.seen);
		return -ENOMEM;
	}
	do {
		for (uint32_t t = 0; t < k; t++)
			m.pos[t] = 0;
		pass = merge_pass(&m);
		joins += pass;
	} while (pass > 0 && ++passes < MERGE_PASSES);
	free(m.pos);
	free(m.seen);
	return joins;
}
